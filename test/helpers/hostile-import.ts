/**
 * Child process of the hostile-spec corpus (test/helpers/hostile-spec.ts): imports every generated module of
 * every variant with sentinels armed, starts each variant's server and the control routes on Fastify, and
 * writes what happened to a JSON report. Injected code would call `globalThis.__hostile`, write to the
 * console or exit; each of those is recorded, none is let through.
 *
 * Usage: node --conditions=@card-api/source --import tsx test/helpers/hostile-import.ts <plan.json> <report.json>
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';

const [planFile, reportFile] = process.argv.slice(2) as [string, string];
const plan = JSON.parse(readFileSync(planFile, 'utf8')) as Array<{ name: string; dir: string; entries: string[]; control: boolean }>;
const tripped: string[] = [];
const modules: Record<string, string> = {};
const servers: Record<string, string> = {};
const thenable: Record<string, boolean> = {};

(globalThis as { __hostile?: (tag: string) => void }).__hostile = (tag) => tripped.push(`sentinel ${tag}`);
for (const method of ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const) {
  console[method] = (...args: unknown[]) => tripped.push(`console.${method} ${args.map(String).join(' ').slice(0, 200)}`);
}
process.exit = ((code?: number) => {
  tripped.push(`process.exit(${code})`);
  throw new Error('process.exit called');
}) as typeof process.exit;
process.stdout.write = ((chunk: unknown) => {
  tripped.push(`stdout ${String(chunk).slice(0, 200)}`);
  return true;
}) as typeof process.stdout.write;

type Routes = ReadonlyArray<{ operationId: string }>;
type PluginModule = { cardApi: (...args: never[]) => unknown; routes: Routes };

/** Registers a generated plugin (or the control routes through the server runtime) and waits for Fastify to be ready. */
async function start(register: (app: ReturnType<typeof Fastify>) => Promise<unknown>): Promise<string> {
  const app = Fastify({ logger: false });
  try {
    await register(app);
    await app.ready();
    return 'ok';
  } catch (error) {
    return `failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500);
  } finally {
    await app.close();
  }
}

const handlersFor = (routes: Routes): Record<string, () => Promise<object>> => {
  const handlers: Record<string, () => Promise<object>> = {};
  for (const route of routes) Object.defineProperty(handlers, route.operationId, { value: async () => ({}), enumerable: true });
  return handlers;
};

for (const variant of plan) {
  const loaded = new Map<string, Record<string, unknown>>();
  for (const entry of variant.entries) {
    try {
      loaded.set(entry, (await import(pathToFileURL(entry).href)) as Record<string, unknown>);
      modules[entry] = 'ok';
    } catch (error) {
      modules[entry] = `failed: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500);
    }
  }
  const find = (suffix: string): Record<string, unknown> | undefined => [...loaded].find(([entry]) => entry.endsWith(suffix))?.[1];
  const client = find('/client/index.ts') as { CardApiClient?: new (options: object) => object } | undefined;
  if (client?.CardApiClient) {
    const api = new client.CardApiClient({ token: 't', baseUrl: 'http://127.0.0.1:9' });
    thenable[variant.name] = typeof (api as { then?: unknown }).then === 'function';
  }
  const server = find('/server/index.ts') as (PluginModule & { createCardApiPlugin: (api: object) => never }) | undefined;
  if (server) {
    servers[`${variant.name} server`] = await start((app) =>
      app.register(server.cardApi as never, { prefix: '/api/v1', handlers: handlersFor(server.routes), authenticate: () => null } as never),
    );
    const control = find('/control/routes.gen.ts') as { routes: Routes; componentSchemas: object } | undefined;
    const spec = find('/control/spec.gen.ts') as { openapiYaml: string } | undefined;
    if (variant.control && control && spec) {
      const plugin = server.createCardApiPlugin({ title: 'control', routes: control.routes, schemas: [control.componentSchemas], openapiYaml: spec.openapiYaml });
      servers[`${variant.name} control`] = await start((app) => app.register(plugin, { prefix: '/sandbox', handlers: handlersFor(control.routes), authenticate: () => null } as never));
    }
  }
}

writeFileSync(reportFile, JSON.stringify({ tripped, modules, servers, thenable }));
