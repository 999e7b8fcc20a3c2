/**
 * The control API as a Fastify plugin: the generated route table of `spec/sandbox/control.yaml` on the runtime
 * of `@card-api/server` (request and response validation, bearer auth, D2 error bodies), with its document at
 * `/sandbox/openapi.yaml` and a reference page at `/sandbox/docs`. The document's paths already start with
 * `/sandbox`, so the routes are registered at the root and the docs and the not-found answer under `/sandbox`.
 */
import { createCardApiPlugin, errorBody, registerDocs, type CardApiOptions } from '@card-api/server';
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Sandbox } from '../sandbox.js';
import type { SandboxControlHandlers } from './handlers.gen.js';
import { controlAuthenticate, controlHandlers, type ControlAuth } from './handlers.js';
import { componentSchemas, routes } from './routes.gen.js';
import { openapiYaml } from './spec.gen.js';

/** Where the control API lives on the sandbox's origin. */
export const CONTROL_PREFIX = '/sandbox';

const TITLE = 'Card Issuing Sandbox Control API';
const plugin = createCardApiPlugin({ title: TITLE, routes, schemas: [componentSchemas], openapiYaml });

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
      registerDocs(instance, { title: TITLE, openapiYaml });
      instance.setNotFoundHandler((request, reply) =>
        reply.code(404).send(errorBody('api.not_found', `No route ${request.method} ${request.url.split('?')[0] ?? ''}.`, `req_${randomUUID().replace(/-/g, '')}`)),
      );
    },
    { prefix: CONTROL_PREFIX },
  );
}
