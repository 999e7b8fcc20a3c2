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
import { runVerify, type VerifyReport } from '../../packages/cli/src/verify/index.js';
import { WAIT_MS } from '../helpers/limits.js';

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

/** The tampering proxy between the sandbox's deliveries and verify's receiver. */
export async function hookProxy(target: () => number, secret: () => string, fault: HookFault | undefined): Promise<Server> {
  let tampered = false;
  let held: { headers: IncomingHttpHeaders; body: Buffer } | null = null;
  const send = (headers: IncomingHttpHeaders, body: Buffer) => forward(target(), 'POST', '/hooks', { 'content-type': 'application/json', 'x-service-signature': String(headers['x-service-signature'] ?? '') }, body);
  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const event = JSON.parse(body.toString('utf8')) as { event: string };
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
    sandboxOptions: { closeDelayMs: null, webhookRetryScheduleMs: [200], rateLimits: { tokenPerMinute: 100_000, ipPerMinute: 100_000 }, cardSecretsEnvelope: options.cardSecretsEnvelope ?? 'full' },
  });
  const servers: Server[] = [];
  let stopDriver = () => undefined as void;
  try {
    const workspaceId = running.sandbox.auth.resolveToken(running.token!)!.workspace.id;
    let baseUrl = running.baseUrl;
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
      const proxy = await hookProxy(() => receiverPort, () => secret, options.hookFault);
      servers.push(proxy);
      const endpoint = running.sandbox.webhooks.registerEndpoint(workspaceId, { url: `http://127.0.0.1:${(proxy.address() as { port: number }).port}/hooks`, events: '*' });
      secret = endpoint.secret;
    }
    stopDriver = options.writes ? closeDriver(running, workspaceId, options.webhooks === true) : stopDriver;
    const report = await runVerify({
      baseUrl,
      token: running.token!,
      spec: DEFAULT_SPEC,
      allowWrites: options.writes === true,
      ...(options.webhooks ? { webhook: { host: '127.0.0.1', port: 0, secret } } : {}),
      ...(privateKeyPem ? { privateKeyPem } : {}),
      pollIntervalMs: 50,
      perPage: 2,
      // verify's own waits, only bounding a hang here (test/helpers/limits.ts).
      orderTimeoutMs: WAIT_MS,
      closeTimeoutMs: WAIT_MS,
      webhookWaitMs: WAIT_MS,
      onListening: async (port) => {
        receiverPort = port;
      },
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
