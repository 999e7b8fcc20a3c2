// Copied by gen-card-api from templates/webhooks/dispatcher.ts. Do not edit: change the template and run the generator.
import { createMemoryDedupeStore, dedupeKey, type DedupeKey, type DedupeStore } from './dedupe.js';
import { secretList } from './envelope.js';
import { WebhookVerificationError, type WebhookVerificationReason } from './errors.js';
import type { EventForPattern, EventPattern, RawBody, WebhookEvent, WebhookSecrets } from './types.js';

/** Options of `createWebhookHandler`. */
export interface WebhookHandlerOptions<E extends WebhookEvent = WebhookEvent> {
  /** Endpoint signing secret, or several during a rotation. */
  secrets: WebhookSecrets;
  /** Largest accepted clock distance in seconds. Default 300. */
  toleranceSec?: number;
  /** The receiver's clock (a `Date` or epoch milliseconds) for the timestamp check; default real time. For tests and replays. */
  now?: () => Date | number;
  /**
   * Where handled deliveries are recorded, by `event_id` or, without one, by the nested business uuid
   * (`dedupeKey`); default an in-memory store remembering each for 24 h within 100 000 keys; `false` turns
   * deduplication off.
   */
  dedupe?: DedupeStore | false;
  /** How long a claim may stay unfinished before another delivery may run it. Default 60 s. */
  leaseMs?: number;
  /**
   * Every event code the types know (the generated binding passes the catalog). With it, a known code
   * without a handler is acknowledged silently and wildcards only match known codes; without it, every
   * event no handler matches goes to `onUnknownEvent`.
   */
  knownEvents?: readonly E['event'][];
  /**
   * Called for an event code no handler covers, typically one the service added after this code was
   * generated. Required: a new event code must not turn into an error or a retry storm.
   */
  onUnknownEvent: (event: WebhookEvent) => unknown;
  /** Called when a handler throws (the delivery is answered 500 and will be retried). For logging. */
  onError?: (error: unknown, event: E) => void;
}

/** What became of a delivery. `status` is the HTTP status to answer with. */
export type WebhookResult<E extends WebhookEvent = WebhookEvent> =
  | { status: 200; outcome: 'handled' | 'ignored'; event: E }
  | { status: 200; outcome: 'unknown_event'; event: WebhookEvent }
  /** `event_id`: the event's id, or the key derived from its business uuid when it has none (`dedupeKey`). */
  | { status: 200; outcome: 'duplicate'; event_id: DedupeKey }
  | { status: 400; outcome: 'rejected'; reason: WebhookVerificationReason; message: string }
  | { status: 409; outcome: 'in_flight'; event_id: DedupeKey }
  | { status: 500; outcome: 'failed'; event: E; error: unknown };

/** An `order.completed` / `order.failed` event as `orders.wait` needs it. */
export type OrderEvent = {
  event: 'order.completed' | 'order.failed';
  data: { order_uuid: string } & Record<string, unknown>;
};

/** A push source of order outcomes; `subscribe` returns the unsubscribe function. */
export interface OrderEventSource {
  subscribe(listener: (event: OrderEvent) => void): () => void;
}

/** A typed webhook dispatcher; see `createWebhookHandler`. */
export interface WebhookHandler<E extends WebhookEvent = WebhookEvent> {
  /**
   * Registers a handler for an event name or a `'<prefix>.*'` wildcard; the payload type follows the name.
   * Several handlers may match one event: they run in registration order, one after the other.
   */
  on<P extends EventPattern<E>>(pattern: P, handler: (event: EventForPattern<E, P>) => unknown): WebhookHandler<E>;
  /** Verifies, deduplicates and dispatches one delivery. Never throws for a bad delivery or a failing handler. */
  handle(rawBody: RawBody, signatureHeader: string | null | undefined): Promise<WebhookResult<E>>;
  /** Order outcomes from every verified `order.*` delivery, duplicates included (waiting on an order is idempotent). */
  orderEvents(): OrderEventSource;
}

/** The verification step a dispatcher runs: the Node or the WebCrypto path. */
export type Verifier = (
  rawBody: RawBody,
  header: string | null | undefined,
  secrets: WebhookSecrets,
  options: { toleranceSec?: number; now?: Date | number },
) => WebhookEvent | Promise<WebhookEvent>;

type Handler = (event: never) => unknown;

/**
 * Builds `createWebhookHandler` over a verifier, so that the Node and WebCrypto entry points
 * share one dispatcher.
 */
export function createDispatcher<E extends WebhookEvent>(verify: Verifier, options: WebhookHandlerOptions<E>): WebhookHandler<E> {
  // Checked at creation, each with what is missing: an unset secret must not wait for the first delivery to fail.
  if (typeof options !== 'object' || options === null) throw new TypeError('createWebhookHandler needs its options: { secrets, onUnknownEvent }');
  const { secrets, toleranceSec, now, leaseMs = 60_000, onUnknownEvent, onError } = options;
  secretList(secrets, 'createWebhookHandler: options.secrets');
  if (now !== undefined && typeof now !== 'function') throw new TypeError('now must be a function returning a Date or epoch milliseconds');
  if (typeof onUnknownEvent !== 'function') throw new TypeError('onUnknownEvent is required: decide what a new event code does');
  const store = options.dedupe === false ? undefined : (options.dedupe ?? createMemoryDedupeStore());
  const known = options.knownEvents ? new Set<string>(options.knownEvents) : undefined;
  const exact = new Map<string, Handler[]>();
  const wildcards: { prefix: string; handler: Handler }[] = [];
  const orderListeners = new Set<(event: OrderEvent) => void>();
  // Same-process concurrent deliveries of one id wait for the first instead of asking the store.
  const running = new Map<DedupeKey, Promise<WebhookResult<E>>>();

  function handlersFor(name: string): Handler[] {
    const list = exact.get(name) ?? [];
    if (wildcards.length === 0 || (known && !known.has(name))) return list;
    const all = [...list];
    for (const w of wildcards) if (name.startsWith(w.prefix)) all.push(w.handler);
    return all;
  }

  async function run(event: E): Promise<WebhookResult<E>> {
    const list = handlersFor(event.event);
    try {
      if (list.length === 0) {
        if (known?.has(event.event)) return { status: 200, outcome: 'ignored', event };
        await onUnknownEvent(event);
        return { status: 200, outcome: 'unknown_event', event };
      }
      for (const h of list) await h(event as never);
      return { status: 200, outcome: 'handled', event };
    } catch (error) {
      try {
        onError?.(error, event);
      } catch {
        // A broken logger must not change the answer.
      }
      return { status: 500, outcome: 'failed', event, error };
    }
  }

  async function dedupeAndRun(event: E, id: DedupeKey, s: DedupeStore): Promise<WebhookResult<E>> {
    let claim;
    try {
      claim = await s.claim(id, leaseMs);
    } catch (error) {
      return { status: 500, outcome: 'failed', event, error };
    }
    if (claim === 'duplicate') return { status: 200, outcome: 'duplicate', event_id: id };
    if (claim === 'in_flight') return { status: 409, outcome: 'in_flight', event_id: id };
    const result = await run(event);
    try {
      await (result.status === 200 ? s.commit(id) : s.release(id));
    } catch (error) {
      // Not recorded as handled: answering 500 makes the service retry, and handlers are idempotent.
      if (result.status === 200) return { status: 500, outcome: 'failed', event, error };
    }
    return result;
  }

  function emitOrder(event: E): void {
    if (orderListeners.size === 0 || (event.event !== 'order.completed' && event.event !== 'order.failed')) return;
    const data = event.data as { order_uuid?: unknown } | null;
    if (typeof data !== 'object' || data === null || typeof data.order_uuid !== 'string') return;
    for (const listener of orderListeners) {
      try {
        listener(event as unknown as OrderEvent);
      } catch {
        // A waiter's bug must not fail the delivery.
      }
    }
  }

  const self: WebhookHandler<E> = {
    on(pattern, handler) {
      if (typeof handler !== 'function') throw new TypeError(`handler for "${pattern}" must be a function`);
      if (pattern.endsWith('.*')) wildcards.push({ prefix: pattern.slice(0, -1), handler });
      else {
        const list = exact.get(pattern);
        if (list) list.push(handler);
        else exact.set(pattern, [handler]);
      }
      return self;
    },

    async handle(rawBody, signatureHeader) {
      let event: E;
      try {
        event = (await verify(rawBody, signatureHeader, secrets, now === undefined ? { toleranceSec } : { toleranceSec, now: now() })) as E;
      } catch (error) {
        if (error instanceof WebhookVerificationError) {
          return { status: 400, outcome: 'rejected', reason: error.reason, message: error.message };
        }
        throw error;
      }
      emitOrder(event);
      const id = store ? dedupeKey(event) : null;
      if (!store || id === null) return run(event);
      const first = running.get(id);
      if (first) {
        const result = await first;
        return result.status === 200 ? { status: 200, outcome: 'duplicate', event_id: id } : result;
      }
      const pending = dedupeAndRun(event, id, store);
      running.set(id, pending);
      try {
        return await pending;
      } finally {
        running.delete(id);
      }
    },

    orderEvents() {
      return {
        subscribe(listener) {
          orderListeners.add(listener);
          return () => void orderListeners.delete(listener);
        },
      };
    },
  };
  return self;
}
