/**
 * A typed client of the control API: openapi-fetch over the generated `paths` of `spec/sandbox/control.yaml`,
 * with the token sent on every call.
 */
import createClient, { type Client } from 'openapi-fetch';
import type { paths } from './types.gen.js';

/** The control API's paths, for `openapi-fetch` and friends. */
export type SandboxControlPaths = paths;

/** What {@link createControlClient} returns: `GET`, `POST`, `PUT`, `PATCH`, `DELETE` typed by path. */
export type SandboxControlClient = Client<paths>;

/**
 * @param options.baseUrl the sandbox's origin (`RunningSandbox.origin`, such as `http://127.0.0.1:4010`), without `/api/v1`
 * @param options.token any token of the workspace to act on
 *
 * @example
 * const control = createControlClient({ baseUrl: running.origin, token: running.token! });
 * const { data, error } = await control.POST('/sandbox/cards/{uuid}/authorizations', { params: { path: { uuid } }, body: { amount: '25.00' } });
 */
export function createControlClient(options: { baseUrl: string; token: string; fetch?: typeof globalThis.fetch }): SandboxControlClient {
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { Authorization: `Bearer ${options.token}` },
    ...(options.fetch !== undefined ? { fetch: options.fetch } : {}),
  });
}
