import http from 'node:http';
import type { AddressInfo } from 'node:net';
// Relative imports until the generated `@card-api/webhooks` package lands.
import { constructEvent, type WebhookEvent } from '@card-api/webhooks';
import { SpecValidator } from '../../../test/helpers/spec-validator.js';

/** One request the receiver accepted: the raw bytes and the verified header. */
export interface ReceivedDelivery {
  body: Buffer;
  signature: string;
  /** `t` of the signature header, unix seconds. */
  t: number;
  contentType: string | undefined;
  event: WebhookEvent;
}

/**
 * Test fixture: a real `node:http` receiver on 127.0.0.1 that verifies every delivery with the
 * webhook runtime's `constructEvent` (against the sandbox clock, which signs) and validates each
 * body against the spec's webhook schema. Requests that fail either check are answered 400 and
 * listed in `problems`; the rest are answered with `respond(n)` (n = 1 for the first accepted one).
 */
export interface TestReceiver {
  readonly url: string;
  /** Set after `registerEndpoint` returns the secret. */
  secret: string;
  /** Status for the n-th verified request (default 204); `'hang'` never answers. */
  respond: (n: number, event: WebhookEvent) => number | 'hang';
  readonly received: ReceivedDelivery[];
  readonly problems: string[];
  /** Stops listening (connections refused) until `start`. */
  stop(): Promise<void>;
  /** Listens again on the same port. */
  start(): Promise<void>;
}

const validator = new SpecValidator({ strict: true });

export async function startReceiver(now: () => Date): Promise<TestReceiver> {
  const received: ReceivedDelivery[] = [];
  const problems: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const signature = String(req.headers['x-service-signature'] ?? '');
      try {
        const event = constructEvent(body, signature, receiver.secret, { now: now() });
        const errors = validator.webhookErrors(event);
        if (errors.length > 0) throw new Error(`${event.event} does not match the spec: ${errors.join('; ')}`);
        received.push({ body, signature, t: Number(/t=(\d+)/.exec(signature)?.[1]), contentType: req.headers['content-type'], event });
        const status = receiver.respond(received.length, event);
        if (status === 'hang') return;
        res.statusCode = status;
        res.end();
      } catch (error) {
        problems.push(String(error));
        res.statusCode = 400;
        res.end();
      }
    });
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  await listen(0);
  const { port } = server.address() as AddressInfo;
  const receiver: TestReceiver = {
    url: `http://127.0.0.1:${port}/webhooks`,
    secret: '',
    respond: () => 204,
    received,
    problems,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
    start: () => listen(port),
  };
  return receiver;
}
