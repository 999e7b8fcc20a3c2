/**
 * Scenes for the verify tests: a sandbox on loopback, optionally behind a tampering proxy (REST faults) and
 * with its webhook endpoint behind a second tampering proxy (delivery faults), and `runVerify` in-process.
 * Close stage 2 is driven by the test (the sandbox's close delay is off): it happens once the close order has
 * completed and `card.close_initiated` has been delivered, so the order of arrivals is fixed, never raced.
 */
import { generateKeyPairSync } from 'node:crypto';
import { createServer, request as httpRequest, type IncomingHttpHeaders, type Server } from 'node:http';
import { startSandbox, type RunningSandbox } from '@card-api/sandbox';
import { signPayload } from '@card-api/webhooks/testing';
import { DEFAULT_SPEC } from '../../generators/index.js';
import { runVerify, type VerifyOptions, type VerifyReport } from '../../packages/cli/src/verify/index.js';
import type { Mutant, ProxyAnswer, ProxyRequest, RestContext } from './mutants.js';
import { WAIT_MS } from '../helpers/limits.js';

/** verify's waits in a scene with a fault, where some of them are meant to run out (see `runScene`). */
const FAULT_WAIT_MS = 30_000;

/** `seed-orders` is no fault: orders without `related_card_uuid` (and `related_card_id`), as the contract's order row has it (D29). */
export type RestFault = 'drop-field' | 'undeclared-status' | 'missing-request-id' | 'reused-key-new-order' | 'broken-next-link' | 'seed-orders';
export type HookFault = 'bad-signature' | 'redelivery-different-bytes' | 'closed-before-initiated';

export interface SceneOptions {
  writes?: boolean;
  webhooks?: boolean;
  privateKey?: boolean;
  restFault?: RestFault;
  hookFault?: HookFault;
  /** The sandbox's envelope of `card.issued.secrets` (D13); default `full`. */
  cardSecretsEnvelope?: 'full' | 'example';
  /** One fault of the mutation catalogue (test/verify/mutants.ts), on the REST or the delivery side. */
  mutant?: Mutant;
  /** Give verify a read-only token and another workspace's token, minted through the sandbox's control API. */
  tokens?: boolean;
  /** The sandbox's per-minute ceilings; default none in effect (100,000). */
  rateLimits?: { tokenPerMinute?: number; ipPerMinute?: number };
  /** Options passed to runVerify as they are (seed, budgets). */
  verify?: Partial<VerifyOptions>;
}

export interface SceneResult {
  report: VerifyReport;
  failed: string[];
  skipped: string[];
  /** Orders in the workspace after the run. */
  ordersAfter: number;
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port));
  });
}

export function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
}

function readBody(req: import('node:http').IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** Forwards one request to `port` on loopback, keeping every header (Host too, so pagination links name the proxy). */
function forward(port: number, method: string, path: string, headers: IncomingHttpHeaders, body: Buffer): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { ...headers, 'content-length': String(body.length) } }, (res) => {
      readBody(res).then((b) => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: b }), reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The tampering proxy in front of the public API: one fault, on one kind of request. */
async function restProxy(targetPort: number, fault: RestFault): Promise<Server> {
  const seenKeys = new Map<string, string>();
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const headers = { ...req.headers };
      const route = (req.url ?? '').split('?')[0];
      if (fault === 'reused-key-new-order' && req.method === 'POST' && route === '/api/v1/cards') {
        const key = String(headers['x-idempotency-key'] ?? '');
        // The exact replay loses its key on the way: the server then makes a second order.
        if (seenKeys.get(key) === body.toString('utf8')) delete headers['x-idempotency-key'];
        else seenKeys.set(key, body.toString('utf8'));
      }
      const answer = await forward(targetPort, req.method ?? 'GET', req.url ?? '/', headers, body);
      let status = answer.status;
      let out = answer.body;
      const outHeaders = { ...answer.headers };
      if (fault === 'drop-field' && route === '/api/v1/ping' && status === 200) {
        const json = JSON.parse(out.toString('utf8'));
        delete json.data.workspace_name;
        out = Buffer.from(JSON.stringify(json));
      }
      if (fault === 'broken-next-link' && route === '/api/v1/orders' && new URL(req.url ?? '/', 'http://x').searchParams.get('page') === '1' && status === 200) {
        const json = JSON.parse(out.toString('utf8'));
        json.links.next = null;
        out = Buffer.from(JSON.stringify(json));
      }
      if (fault === 'seed-orders' && /^\/api\/v1\/(orders|cards)/.test(route ?? '') && status < 300 && out.length > 0) {
        const json = JSON.parse(out.toString('utf8'));
        for (const order of Array.isArray(json.data) ? json.data : [json.data]) {
          if (order && typeof order === 'object' && 'held_amount' in order && 'type' in order) {
            delete order.related_card_uuid;
            delete order.related_card_id;
          }
        }
        out = Buffer.from(JSON.stringify(json));
      }
      if (fault === 'undeclared-status' && route === '/api/v1/wallet' && status === 200) status = 203;
      if (fault === 'missing-request-id' && route === '/api/v1/card-products') delete outHeaders['x-request-id'];
      delete outHeaders['content-length'];
      delete outHeaders['transfer-encoding'];
      res.writeHead(status, { ...outHeaders, 'content-length': String(out.length) }).end(out);
    })().catch((error: unknown) => res.writeHead(502).end(String(error)));
  });
  await listen(server);
  return server;
}

/** The proxy of a catalogue mutant: every exchange goes through `mutant.rest`, which may ask the sandbox itself. */
async function mutantProxy(targetPort: number, mutant: Mutant, tokens: RestContext['tokens']): Promise<Server> {
  const root = '/api/v1';
  const ctx: RestContext = {
    tokens,
    state: new Map(),
    send: async (r: ProxyRequest): Promise<ProxyAnswer> => {
      const search = r.query.toString();
      const a = await forward(targetPort, r.method, `${root}${r.route}${search ? `?${search}` : ''}`, r.headers, r.body);
      return { status: a.status, headers: a.headers, body: a.body };
    },
  };
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://proxy.invalid');
      const answer = url.pathname.startsWith(root)
        ? await mutant.rest!({ method: req.method ?? 'GET', route: url.pathname.slice(root.length), query: url.searchParams, headers: { ...req.headers }, body }, ctx)
        : await forward(targetPort, req.method ?? 'GET', req.url ?? '/', req.headers, body);
      const outHeaders = { ...answer.headers };
      delete outHeaders['content-length'];
      delete outHeaders['transfer-encoding'];
      res.writeHead(answer.status, { ...outHeaders, 'content-length': String(answer.body.length) }).end(answer.body);
    })().catch((error: unknown) => res.writeHead(502).end(String(error)));
  });
  await listen(server);
  return server;
}

/** Mints a token of this workspace with `abilities`, and a workspace with its token, through the control API. */
export async function controlTokens(origin: string, token: string): Promise<{ readOnly: string; other: string }> {
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${origin}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status !== 201) throw new Error(`${path} answered ${res.status}`);
    return ((await res.json()) as { data: Record<string, any> }).data;
  };
  const readOnly = await post('/sandbox/tokens', { name: 'verify read-only', abilities: ['cards.read', 'orders.read', 'wallet.read', 'transactions.read'] });
  const other = await post('/sandbox/workspaces', { name: 'Verify other workspace', base_currency: 'USD', initial_deposit: '100.00', holder_first_name: 'Other', holder_last_name: 'Holder' });
  return { readOnly: String(readOnly.token), other: String(other.token.token) };
}

/** The tampering proxy between the sandbox's deliveries and verify's receiver. */
export async function hookProxy(target: () => number, secret: () => string, fault: HookFault | undefined, mutant?: Mutant): Promise<Server> {
  let tampered = false;
  const mutantState = new Map<string, unknown>();
  let held: { headers: IncomingHttpHeaders; body: Buffer } | null = null;
  const send = (headers: IncomingHttpHeaders, body: Buffer) => forward(target(), 'POST', '/hooks', { 'content-type': 'application/json', 'x-service-signature': String(headers['x-service-signature'] ?? '') }, body);
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const event = JSON.parse(body.toString('utf8')) as { event: string };
      if (mutant?.hook) {
        let status = 200;
        for (const out of mutant.hook({ event, body, signature: String(req.headers['x-service-signature'] ?? ''), secret: secret() }, mutantState)) {
          status = (await send({ 'x-service-signature': out.signature }, out.body)).status;
        }
        res.writeHead(status).end();
        return;
      }
      if (fault === 'closed-before-initiated' && event.event === 'card.close_initiated' && held === null) {
        held = { headers: req.headers, body }; // Acknowledged now, passed on after card.closed.
        res.writeHead(200).end();
        return;
      }
      const answer = await send(req.headers, body);
      res.writeHead(answer.status).end(answer.body);
      if (fault === 'closed-before-initiated' && event.event === 'card.closed' && held) {
        const h = held;
        held = null;
        await send(h.headers, h.body);
      }
      if (!tampered && event.event === 'card.frozen' && (fault === 'bad-signature' || fault === 'redelivery-different-bytes')) {
        tampered = true;
        if (fault === 'bad-signature') {
          const header = String(req.headers['x-service-signature']);
          const flipped = header.replace(/v1=([0-9a-f])/, (_, c: string) => `v1=${c === '0' ? '1' : '0'}`);
          await send({ 'x-service-signature': flipped }, body);
        } else {
          const other = Buffer.from(JSON.stringify(JSON.parse(body.toString('utf8')), null, 2));
          await send({ 'x-service-signature': signPayload(other, secret()) }, other);
        }
      }
    })().catch((error: unknown) => res.writeHead(502).end(String(error)));
  });
  await listen(server);
  return server;
}

/** Finishes close stage 2 once the close order completed and card.close_initiated was delivered (when there is an endpoint). */
export function closeDriver(running: RunningSandbox, workspaceId: number, webhooks: boolean): () => void {
  const { sandbox } = running;
  const finished = new Set<string>();
  const timer = setInterval(() => {
    try {
      for (const card of sandbox.cards.list(workspaceId, { status: 'pending_close', per_page: 100 }).data) {
        if (finished.has(card.uuid)) continue;
        const closeDone = sandbox.orders.list(workspaceId, { type: 'close_card', status: 'completed', per_page: 100 }).data.some((o) => o.related_card_uuid === card.uuid);
        const delivered = !webhooks || sandbox.deliveries.list({ workspaceId, event: 'card.close_initiated', status: 'succeeded' }).some((d) => d.body.includes(card.uuid));
        if (closeDone && delivered) {
          finished.add(card.uuid);
          sandbox.admin.finishClose(card.uuid);
        }
      }
    } catch {
      // The sandbox closed under the timer.
    }
  }, 20);
  return () => clearInterval(timer);
}

/** Runs verify against a fresh sandbox set up as asked. */
export async function runScene(options: SceneOptions = {}): Promise<SceneResult> {
  // Rate limits out of the way, so that several runs a minute never wait out a 429 (probe.test.ts covers that path).
  const running = await startSandbox({
    port: 0,
    sandboxOptions: { closeDelayMs: null, webhookRetryScheduleMs: [200], rateLimits: options.rateLimits ?? { tokenPerMinute: 100_000, ipPerMinute: 100_000 }, cardSecretsEnvelope: options.cardSecretsEnvelope ?? 'full' },
  });
  const servers: Server[] = [];
  let stopDriver = () => undefined as void;
  try {
    const workspaceId = running.sandbox.auth.resolveToken(running.token!)!.workspace.id;
    let baseUrl = running.baseUrl;
    const tokens = options.tokens ? await controlTokens(running.origin, running.token!) : undefined;
    if (options.mutant?.rest) {
      const proxy = await mutantProxy(Number(new URL(running.origin).port), options.mutant, { main: running.token!, ...(tokens ? { readOnly: tokens.readOnly, other: tokens.other } : {}) });
      servers.push(proxy);
      baseUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}/api/v1`;
    }
    if (options.restFault) {
      const proxy = await restProxy(Number(new URL(running.origin).port), options.restFault);
      servers.push(proxy);
      baseUrl = `http://127.0.0.1:${(proxy.address() as { port: number }).port}/api/v1`;
    }
    let privateKeyPem: string | undefined;
    if (options.privateKey) {
      const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
      running.sandbox.webhooks.setPublicKey(workspaceId, publicKey.export({ type: 'spki', format: 'pem' }) as string);
      privateKeyPem = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
    }
    // The endpoint points at a proxy (a pass-through unless a delivery fault is asked for), so that its URL and
    // secret exist before verify's receiver picks its port.
    let receiverPort = 0;
    let secret = '';
    if (options.webhooks) {
      const proxy = await hookProxy(() => receiverPort, () => secret, options.hookFault, options.mutant);
      servers.push(proxy);
      const endpoint = running.sandbox.webhooks.registerEndpoint(workspaceId, { url: `http://127.0.0.1:${(proxy.address() as { port: number }).port}/hooks`, events: '*' });
      secret = endpoint.secret;
    }
    stopDriver = options.writes ? closeDriver(running, workspaceId, options.webhooks === true) : stopDriver;
    const faultWaitMs = options.mutant || options.restFault || options.hookFault ? FAULT_WAIT_MS : undefined;
    const report = await runVerify({
      baseUrl,
      token: running.token!,
      spec: DEFAULT_SPEC,
      allowWrites: options.writes === true,
      ...(options.webhooks ? { webhook: { host: '127.0.0.1', port: 0, secret } } : {}),
      ...(privateKeyPem ? { privateKeyPem } : {}),
      pollIntervalMs: 50,
      perPage: 2,
      // verify's own waits. A clean scene's waits end on the event, so they only bound a hang (test/helpers/limits.ts).
      // A fault scene is there to make some of them run out (a close stage 2 that never comes once deliveries fail
      // their signature, a freeze that never completes): verify's verdict then comes when they do, so they are
      // short. Nothing a fault scene asserts needs a clean step to finish within them but an order of a 50 ms sandbox.
      orderTimeoutMs: faultWaitMs ?? WAIT_MS,
      closeTimeoutMs: faultWaitMs ?? WAIT_MS,
      webhookWaitMs: faultWaitMs ?? WAIT_MS,
      onListening: async (port) => {
        receiverPort = port;
      },
      ...(tokens ? { readOnlyToken: tokens.readOnly, otherWorkspaceToken: tokens.other } : {}),
      maxExamples: 5,
      ...options.verify,
    });
    const failed = report.checks.filter((c) => c.status === 'fail').map((c) => c.id);
    const skipped = report.checks.filter((c) => c.status === 'skipped').map((c) => c.id);
    const ordersAfter = running.sandbox.orders.list(workspaceId).meta.total;
    return { report, failed, skipped, ordersAfter };
  } finally {
    stopDriver();
    for (const s of servers) await close(s);
    await running.close();
  }
}
