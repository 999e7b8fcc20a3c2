/**
 * The control API as a Fastify plugin: the generated route table of `spec/sandbox/control.yaml` on the runtime
 * of `@card-api/server` (request and response validation, bearer auth, D2 error bodies), with its document at
 * `/sandbox/openapi.yaml` and a reference page at `/sandbox/docs`. The document's paths already start with
 * `/sandbox`, so the routes are registered at the root and the docs and the not-found answer under `/sandbox`.
 */
import { createCardApiPlugin, createFallbacks, registerDocs, requestOrigin, type CardApiOptions } from '@card-api/server';
import type { FastifyInstance } from 'fastify';
import type { Sandbox } from '../sandbox.js';
import type { SandboxControlHandlers } from './handlers.gen.js';
import { controlAuthenticate, controlHandlers, type ControlAuth } from './handlers.js';
import { componentSchemas, routes } from './routes.gen.js';
import { docsOutline, openapiYaml } from './spec.gen.js';

/** Where the control API lives on the sandbox's origin. */
export const CONTROL_PREFIX = '/sandbox';

const TITLE = 'Card Issuing Sandbox Control API';
const DOCS_ROUTES = ['/openapi.yaml', '/docs', '/docs/init.js', '/docs/:asset'].map((url) => ({ method: 'GET', url: `${CONTROL_PREFIX}${url}` }));
const plugin = createCardApiPlugin({ title: TITLE, routes, schemas: [componentSchemas], openapiYaml, outline: docsOutline });

/** Options of the generic control plugin, for a host that brings its own handlers. */
export type SandboxControlOptions = CardApiOptions<SandboxControlHandlers<ControlAuth>, ControlAuth>;

/**
 * Registers the control API of `sandbox` on `app`: any token of a workspace acts on that workspace; no rate
 * limit (the control API must not eat the public API's budget).
 *
 * @example
 * const app = Fastify();
 * await registerSandboxControl(app, sandbox);
 */
export async function registerSandboxControl(app: FastifyInstance, sandbox: Sandbox): Promise<void> {
  const options: SandboxControlOptions = {
    handlers: controlHandlers(sandbox),
    authenticate: controlAuthenticate(sandbox),
    rateLimit: false,
    docs: false,
    notFound: false,
  };
  await app.register((instance) => plugin(instance, options as CardApiOptions<unknown, ControlAuth>));
  await app.register(
    async (instance) => {
      // The served document names this server (its paths already start with /sandbox), for "Try it out".
      registerDocs(instance, { title: TITLE, openapiYaml, outline: docsOutline, serverUrl: requestOrigin });
      // Unknown paths and methods under /sandbox: 404 `api.not_found` with `X-Request-Id` and, for a known path,
      // `Allow` (D36); errors of those requests and of the docs routes get the same D2 shape.
      const fallbacks = createFallbacks([...routes.map((route) => ({ method: route.method, url: route.url })), ...DOCS_ROUTES]);
      instance.setNotFoundHandler(fallbacks.notFound);
      instance.setErrorHandler(fallbacks.error);
    },
    { prefix: CONTROL_PREFIX },
  );
}
