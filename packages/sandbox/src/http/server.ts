/**
 * The sandbox as a running HTTP service: a Fastify app with the generated `cardApi` plugin under `/api/v1`
 * (docs at `/api/v1/docs`, spec at `/api/v1/openapi.yaml`) over one sandbox, listening on loopback by default.
 */
import { cardApiFor, cardApiServerOptions, createFallbacks, requestOrigin } from '@card-api/server';
import Fastify, { type FastifyInstance } from 'fastify';
import { registerSandboxControl } from '../control/plugin.js';
import { createSandbox, type Sandbox, type SandboxOptions } from '../sandbox.js';
import { sandboxAuthenticate, sandboxRateLimiter, type SandboxAuth } from './auth.js';
import { sandboxHandlers } from './handlers.js';

/** The API prefix the sandbox serves under. */
export const SANDBOX_PREFIX = '/api/v1';

/** Options of {@link startSandbox}. */
export interface StartSandboxOptions {
  /** Port to listen on; 0 picks a free one. Default 4010. */
  port?: number;
  /** Address to listen on. Default `127.0.0.1` (loopback only). */
  host?: string;
  /** SQLite file; state, the default workspace and its token survive a restart. Default in memory. */
  db?: string;
  /** Delay of each order step; default the sandbox's (50 ms). */
  orderLatencyMs?: number;
  /** Create (or, on a reopened file, find) the default workspace and its every-ability token. Default true. */
  seed?: boolean;
  /** Fastify's logger option (true, false or a pino config). Default false. */
  logger?: boolean | Record<string, unknown>;
  /** Serve the control API (`spec/sandbox/control.yaml`) under `/sandbox`. Default true. */
  control?: boolean;
  /** Per-minute ceiling of a token without its own limit; 0 = none. Default 120 (or `sandboxOptions.rateLimits`). */
  rateLimit?: number;
  /** Per-minute ceiling of one caller IP over all tokens; 0 = none. Default 600 (or `sandboxOptions.rateLimits`). */
  ipRateLimit?: number;
  /**
   * Sends every event of the default workspace to this URL (needs `seed`). On a reopened `db` file the endpoint
   * registered for the same URL last time is reused, with its secret and its pending deliveries (a disabled one
   * is enabled again); otherwise a new one is registered.
   */
  webhookUrl?: string;
  /** Further `createSandbox` options (close delay, webhook transport...). */
  sandboxOptions?: Omit<SandboxOptions, 'db' | 'orderLatencyMs'>;
}

/** The endpoint behind `webhookUrl`. */
export interface SandboxWebhook {
  endpointId: number;
  url: string;
  /** Its signing secret (`whsec_...`). */
  secret: string;
  /** True when the endpoint of an earlier run on the same file was reused (same secret, same pending deliveries). */
  reused: boolean;
}

/** A running sandbox service. */
export interface RunningSandbox {
  /** API root including the prefix, such as `http://127.0.0.1:4010/api/v1`. */
  baseUrl: string;
  /** The server's origin, such as `http://127.0.0.1:4010`: the base URL of the control API (`/sandbox/...`). */
  origin: string;
  /** The default workspace's token (every ability); null when `seed` is false. */
  token: string | null;
  /** Id of that token (for `sandbox.admin.revokeToken`), null when `seed` is false. */
  tokenId: number | null;
  /** True when `token` was minted by this start, false when it was read back from the database file. */
  tokenMinted: boolean;
  /** The endpoint of `webhookUrl`, null without it. */
  webhook: SandboxWebhook | null;
  sandbox: Sandbox;
  app: FastifyInstance;
  /** Stops the server (in-flight requests finish, idle connections close), then the sandbox's timers and database. Idempotent. */
  close(): Promise<void>;
}

/**
 * Side table for the default token. Tokens are stored hashed by the domain, so a restart could only prove a
 * token valid, not print it; the sandbox keeps its own default token's value here so that a restart on the
 * same file prints the same, still valid token. It is a local sandbox file: never a production pattern.
 */
const DEFAULT_TOKEN_TABLE = 'http_sandbox_default_token';

/**
 * The default workspace's token: the stored one if it still authenticates, else a freshly seeded one
 * (`seedDefaultWorkspace` creates the workspace on first use and mints a token every call), which is stored.
 */
function defaultToken(sandbox: Sandbox): { token: string; tokenId: number; minted: boolean } {
  sandbox.db.exec(`CREATE TABLE IF NOT EXISTS ${DEFAULT_TOKEN_TABLE} (slot INTEGER PRIMARY KEY CHECK (slot = 1), token TEXT NOT NULL, token_id INTEGER NOT NULL)`);
  const stored = sandbox.db.prepare<[], { token: string; token_id: number }>(`SELECT token, token_id FROM ${DEFAULT_TOKEN_TABLE} WHERE slot = 1`).get();
  if (stored !== undefined) {
    try {
      // Any IP: the default token has no allowlist; a revoked token or a frozen workspace throws.
      const auth = sandbox.auth.authenticate(stored.token, '127.0.0.1');
      if (auth.tokenId === stored.token_id) return { token: stored.token, tokenId: stored.token_id, minted: false };
    } catch {
      // Revoked, or its workspace is no longer active: seed a new one below.
    }
  }
  const seeded = sandbox.seedDefaultWorkspace();
  sandbox.db
    .prepare(`INSERT INTO ${DEFAULT_TOKEN_TABLE} (slot, token, token_id) VALUES (1, ?, ?) ON CONFLICT (slot) DO UPDATE SET token = excluded.token, token_id = excluded.token_id`)
    .run(seeded.token, seeded.tokenId);
  return { token: seeded.token, tokenId: seeded.tokenId, minted: true };
}

/**
 * The default workspace's endpoint for every event at `url`: the newest one registered for that URL with every
 * event is reused (enabled again if it was disabled), keeping its secret and its pending deliveries, so that a
 * restart on the same file neither loses nor doubles a delivery. An active endpoint for that URL with a narrower
 * subscription is disabled (it would double the events it covers) and a new one registered.
 */
function ensureWebhookEndpoint(sandbox: Sandbox, token: string, url: string): SandboxWebhook {
  const resolved = sandbox.auth.resolveToken(token);
  if (resolved === null) throw new Error('sandbox: no default workspace to configure');
  const workspaceId = resolved.workspace.id;
  const same = (other: string): boolean => {
    try {
      return new URL(other).href === new URL(url).href;
    } catch {
      return false;
    }
  };
  const candidates = sandbox.webhooks.listEndpoints(workspaceId).filter((e) => same(e.url));
  const everything = candidates.filter((e) => e.events === '*');
  const reuse = everything.find((e) => e.status === 'active') ?? everything.at(-1);
  if (reuse !== undefined) {
    if (reuse.status !== 'active') sandbox.webhooks.enableEndpoint(workspaceId, reuse.id);
    for (const other of candidates) if (other.id !== reuse.id && other.status === 'active') sandbox.webhooks.disableEndpoint(workspaceId, other.id);
    // The secret is stored (every attempt is signed with it); services never return it after registration.
    const stored = sandbox.db.prepare<[number], { secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = ?').get(reuse.id)!;
    return { endpointId: reuse.id, url: reuse.url, secret: stored.secret, reused: true };
  }
  for (const other of candidates) if (other.status === 'active') sandbox.webhooks.disableEndpoint(workspaceId, other.id);
  const created = sandbox.webhooks.registerEndpoint(workspaceId, { url, events: '*', description: 'gen-card-api sandbox --webhook-url' });
  return { endpointId: created.id, url: created.url, secret: created.secret, reused: false };
}

/**
 * Builds the Fastify app of a sandbox without listening: `cardApi` under `/api/v1` with the sandbox's
 * handlers, authentication and SQLite rate limiter. The caller owns both the app and the sandbox.
 */
export async function buildSandboxApp(sandbox: Sandbox, options: { logger?: StartSandboxOptions['logger']; control?: boolean } = {}): Promise<FastifyInstance> {
  // The server options the runtime recommends (D36): long path parameters reach the schemas, and what the
  // router or Node's parser refuses is still answered in the D2 shape.
  const app = Fastify({ logger: options.logger ?? false, ...cardApiServerOptions() });
  // Each request sees every commit another replica made before it arrived (Store.refreshExternalVersion).
  app.addHook('onRequest', (_request, _reply, done) => {
    sandbox.db.refreshExternalVersion();
    done();
  });
  registerCors(app);
  const root = createFallbacks([]);
  app.setNotFoundHandler(root.notFound);
  app.setErrorHandler(root.error);
  await app.register(cardApiFor<SandboxAuth>(), {
    prefix: SANDBOX_PREFIX,
    handlers: sandboxHandlers(sandbox, { prefix: SANDBOX_PREFIX }),
    authenticate: sandboxAuthenticate(sandbox),
    rateLimit: { limiter: sandboxRateLimiter(sandbox) },
    // The served document names this server, so that "Try it out" on the docs page calls it.
    docs: { serverUrl: (request) => `${requestOrigin(request)}${SANDBOX_PREFIX}` },
  });
  if (options.control !== false) await registerSandboxControl(app, sandbox);
  return app;
}

/** Headers a browser page on another origin may send, and those it may read, on the sandbox's answers. */
const CORS_ALLOW_HEADERS = 'Authorization, Content-Type, X-Idempotency-Key';
const CORS_EXPOSE_HEADERS = 'X-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After';

/**
 * CORS for the sandbox (a local tool, so any origin): every answer to a browser on another origin (a request with
 * an `Origin` header, which browsers always send across origins) allows it and exposes the request-id and
 * rate-limit headers; a preflight `OPTIONS` is answered 204 before routing. A server-to-server call has no
 * `Origin` and gets none of these headers (two fewer headers to validate and write on every answer).
 */
function registerCors(app: FastifyInstance): void {
  // A callback hook, not an async one: it runs on every request and has nothing to await.
  app.addHook('onRequest', (request, reply, done) => {
    if (request.headers.origin === undefined) {
      done();
      return;
    }
    reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', CORS_EXPOSE_HEADERS);
    if (request.method === 'OPTIONS' && request.headers['access-control-request-method'] !== undefined) {
      reply
        .code(204)
        .headers({
          'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE',
          'access-control-allow-headers': CORS_ALLOW_HEADERS,
          'access-control-max-age': '600',
        })
        .send();
      return;
    }
    done();
  });
}

/**
 * Starts the sandbox as an HTTP service.
 *
 * @example
 * const { baseUrl, token, close } = await startSandbox({ port: 0 });
 * const client = new CardApiClient({ baseUrl, token: token! });
 * await client.ping();
 * await close();
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const { port = 4010, host = '127.0.0.1', seed = true } = options;
  const sandboxOptions: SandboxOptions = { ...options.sandboxOptions };
  if (options.rateLimit !== undefined || options.ipRateLimit !== undefined) {
    sandboxOptions.rateLimits = {
      ...sandboxOptions.rateLimits,
      ...(options.rateLimit !== undefined ? { tokenPerMinute: options.rateLimit } : {}),
      ...(options.ipRateLimit !== undefined ? { ipPerMinute: options.ipRateLimit } : {}),
    };
  }
  if (options.webhookUrl !== undefined && !seed) throw new TypeError('startSandbox: webhookUrl needs the default workspace (seed: true)');
  if (options.db !== undefined) sandboxOptions.db = options.db;
  if (options.orderLatencyMs !== undefined) sandboxOptions.orderLatencyMs = options.orderLatencyMs;
  const sandbox = createSandbox(sandboxOptions);
  let app: FastifyInstance | undefined;
  try {
    // One write transaction: two processes starting at once on one database (PostgreSQL replicas) find or create
    // one default workspace, token and endpoint between them, not one each.
    const { seeded, webhook } = sandbox.db.transaction('write', () => {
      const seeded = seed ? defaultToken(sandbox) : null;
      const webhook = seeded !== null && options.webhookUrl !== undefined ? ensureWebhookEndpoint(sandbox, seeded.token, options.webhookUrl) : null;
      return { seeded, webhook };
    });
    app = await buildSandboxApp(sandbox, { logger: options.logger ?? false, control: options.control ?? true });
    await app.listen({ port, host });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error(`sandbox: unexpected listen address ${String(address)}`);
    const hostPart = address.family === 'IPv6' || address.address.includes(':') ? `[${address.address}]` : address.address;
    const origin = `http://${hostPart}:${address.port}`;
    const baseUrl = `${origin}${SANDBOX_PREFIX}`;
    const running = app;
    let closing: Promise<void> | undefined;
    return {
      baseUrl,
      origin,
      token: seeded?.token ?? null,
      tokenId: seeded?.tokenId ?? null,
      tokenMinted: seeded?.minted ?? false,
      webhook,
      sandbox,
      app: running,
      close: () =>
        (closing ??= (async () => {
          try {
            await running.close();
          } finally {
            sandbox.close();
          }
        })()),
    };
  } catch (error) {
    await app?.close().catch(() => undefined);
    sandbox.close();
    throw error;
  }
}
