/**
 * The "local app" of the listen tests: a `node:http` server on loopback (port 0) whose webhook route is built
 * with `@card-api/webhooks`, verifying every delivery with the secret `listen` printed. It keeps the raw bytes
 * and signature of every request and the events it verified, answers 500 to the next deliveries of one event code
 * when told to (`fail`), and lets a test wait (bounded) for an event.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createWebhookHandler, type CardApiEvent, type WebhookHandler } from '@card-api/webhooks';
import { WAIT_MS } from '../helpers/limits.js';

export interface Received {
  body: string;
  signature: string;
  /** The status this app answered. */
  status: number;
  /** What the dispatcher made of it: handled, duplicate, rejected... */
  outcome: string;
  /** `performance.now()` when it was answered. */
  at: number;
}

export class App {
  readonly received: Received[] = [];
  readonly verified: CardApiEvent[] = [];
  /** Deliveries of this event code still to answer with 500 before the app takes them. */
  fail: { event: string; times: number } | undefined;
  readonly #server: http.Server;
  #handler: WebhookHandler<CardApiEvent> | undefined;
  #secret = '';
  readonly #waiters = new Set<() => void>();

  private constructor(server: http.Server) {
    this.#server = server;
  }

  static async start(): Promise<App> {
    const server = http.createServer();
    const app = new App(server);
    server.on('request', (req, res) => void app.#handle(req, res));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return app;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}/webhooks`;
  }

  get secret(): string {
    return this.#secret;
  }

  /** The secret to verify with: the one `listen` printed. */
  set secret(secret: string) {
    this.#secret = secret;
    this.#handler = createWebhookHandler({ secrets: secret, onUnknownEvent: () => {} })
      .on('card.*', (event) => void this.verified.push(event))
      .on('order.*', (event) => void this.verified.push(event));
  }

  async #handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const signature = String(req.headers['x-service-signature'] ?? '');
    let status: number;
    let outcome: string;
    if (this.fail !== undefined && this.fail.times > 0 && body.includes(`"event":${JSON.stringify(this.fail.event)}`)) {
      this.fail.times--;
      status = 500;
      outcome = 'failed on purpose';
    } else if (this.#handler === undefined) {
      status = 503;
      outcome = 'no secret yet';
    } else {
      const result = await this.#handler.handle(body, signature);
      status = result.status;
      outcome = result.outcome;
    }
    this.received.push({ body: body.toString('utf8'), signature, status, outcome, at: performance.now() });
    res.writeHead(status).end();
    for (const wake of [...this.#waiters]) wake();
  }

  /** Resolves when `test` holds, checking after every request; rejects after `timeoutMs`. */
  until(test: () => boolean, what: string, timeoutMs = WAIT_MS): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(wake);
        reject(new Error(`the app did not get ${what} within ${timeoutMs} ms`));
      }, timeoutMs);
      const wake = (): void => {
        if (!test()) return;
        clearTimeout(timer);
        this.#waiters.delete(wake);
        resolve();
      };
      this.#waiters.add(wake);
    });
  }

  /** The verified event with this id, once it arrived. */
  async event(eventId: number, timeoutMs?: number): Promise<CardApiEvent> {
    await this.until(() => this.verified.some((e) => e.event_id === eventId), `event ${eventId}`, timeoutMs);
    return this.verified.find((e) => e.event_id === eventId)!;
  }

  /** When the event was first verified and handled (`performance.now()`), or undefined. */
  verifiedAt(eventId: number): number | undefined {
    return this.requestsOf(eventId).find((r) => r.outcome === 'handled')?.at;
  }

  /** Every request whose body is this event's. */
  requestsOf(eventId: number): Received[] {
    return this.received.filter((r) => (JSON.parse(r.body) as { event_id?: number }).event_id === eventId);
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}
