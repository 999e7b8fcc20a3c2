// Copied by gen-card-api from templates/client/orders.ts. Do not edit: change the template and run the generator.
/**
 * Helpers for asynchronous writes: every write answers 202 with an Order that later reaches
 * `completed` or `failed` (section 3.1).
 *
 * @module
 */
import { OrderFailedError, TimeoutError, type OrderLike } from './errors.js';
import type { RequestOptions } from './core.js';
import { abortReason } from './retry.js';

/** The two order events a webhook receiver can feed to {@link waitForOrder}. */
export interface OrderEvent {
  event: 'order.completed' | 'order.failed';
  data: { order_uuid: string };
}

/**
 * A source of order events, such as a webhook receiver. `subscribe` returns the function that
 * unsubscribes.
 */
export interface OrderEventSource {
  subscribe(listener: (event: OrderEvent) => void): () => void;
}

/** Options of {@link waitForOrder}. */
export interface WaitOptions {
  /** Pause between two reads, in milliseconds. Default 3000 (the contract suggests 2 to 5 s). */
  intervalMs?: number | undefined;
  /** Overall deadline, in milliseconds. Default 120 000. */
  timeoutMs?: number | undefined;
  /** Stops waiting; the wait rejects with the signal's reason. */
  signal?: AbortSignal | undefined;
  /** Webhook events: a matching `order.completed`/`order.failed` triggers a read at once. */
  events?: OrderEventSource | undefined;
}

const TERMINAL_STATUSES = new Set(['completed', 'failed']);

/**
 * Polls an order until it is `completed` (resolves with it) or `failed` (rejects with
 * {@link OrderFailedError}). With `events`, a webhook for the order cuts the current pause short,
 * and one read confirms the outcome, so the webhook only needs to carry the order uuid.
 *
 * Every exit unsubscribes from `events`, clears its timers and detaches from `signal`.
 *
 * @param get - Reads one order; receives a signal that aborts when the wait ends.
 * @throws {@link OrderFailedError} when the order failed; {@link TimeoutError} after `timeoutMs`;
 *   the signal's reason when `signal` aborts; whatever `get` throws.
 * @example
 * ```ts
 * const order = await api.cards.create({ card_product_id: 1, initial_topup_amount: '50.00', ... });
 * const done = await waitForOrder((u, o) => api.orders.get(u, o), order.uuid, { events: receiver });
 * console.log(orderCardUuid(done));
 * ```
 */
export async function waitForOrder<O extends OrderLike>(
  get: (uuid: string, options?: RequestOptions) => Promise<O>,
  uuid: string,
  options: WaitOptions = {},
): Promise<O> {
  const intervalMs = options.intervalMs ?? 3000;
  const timeoutMs = options.timeoutMs ?? 120_000;
  if (!(Number.isFinite(intervalMs) && intervalMs >= 0)) throw new TypeError('intervalMs must be a number >= 0');
  if (!(Number.isFinite(timeoutMs) && timeoutMs > 0)) throw new TypeError('timeoutMs must be a number > 0');
  const { signal, events } = options;
  if (signal?.aborted) throw abortReason(signal);

  // One controller ends everything in flight: the caller's abort, the deadline, or our own exit.
  const ctl = new AbortController();
  const onCallerAbort = (): void => ctl.abort(abortReason(signal as AbortSignal));
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  const deadline = setTimeout(() => {
    ctl.abort(
      new TimeoutError({
        code: 'client.order_wait_timeout',
        message: `Order ${uuid} did not reach completed or failed within ${timeoutMs} ms`,
      }),
    );
  }, timeoutMs);

  let woken = false;
  let wake: (() => void) | undefined;
  const unsubscribe = events?.subscribe((event) => {
    if (event?.data?.order_uuid !== uuid) return;
    woken = true;
    wake?.();
  });

  try {
    const readOptions: RequestOptions = { signal: ctl.signal };
    for (;;) {
      woken = false;
      const order = await raceAbort(get(uuid, readOptions), ctl.signal);
      if (order.status === 'completed') return order;
      if (order.status === 'failed') throw new OrderFailedError(order);
      if (!woken) await pause(intervalMs, ctl.signal, (w) => (wake = w));
      wake = undefined;
    }
  } finally {
    clearTimeout(deadline);
    signal?.removeEventListener('abort', onCallerAbort);
    unsubscribe?.();
    // Releases a read still pending when the wait is left by an exception.
    if (!ctl.signal.aborted) ctl.abort(new DOMException('waitForOrder finished', 'AbortError'));
  }
}

/** Whether an order status is terminal (`completed` or `failed`). */
export function isTerminalOrderStatus(status: string): boolean {
  return TERMINAL_STATUSES.has(status);
}

/**
 * The card an order relates to: `related_card_uuid`, else the `related_card_id` that some 202
 * bodies carry instead (D8) when it is a uuid (it may also be the card's numeric id, which names no
 * card in this API), else `null`.
 *
 * @example
 * ```ts
 * const order = await api.cards.create(body);
 * const cardUuid = orderCardUuid(order); // known at once for issue orders that carry it
 * ```
 */
export function orderCardUuid(order: {
  related_card_uuid?: string | null | undefined;
  related_card_id?: number | string | null | undefined;
}): string | null {
  if (typeof order.related_card_uuid === 'string') return order.related_card_uuid;
  return typeof order.related_card_id === 'string' ? order.related_card_id : null;
}

/** Rejects as soon as the signal aborts, even if `get` ignores it. */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortReason(signal));
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(signal.aborted ? abortReason(signal) : e);
      },
    );
  });
}

/** Waits `ms`, or less if `setWake`'s function is called; rejects when the signal aborts. */
function pause(ms: number, signal: AbortSignal, setWake: (wake: () => void) => void): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal.aborted) {
      reject(abortReason(signal));
      return;
    }
    const finish = (): void => {
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      resolve();
    };
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortReason(signal));
    };
    const timer = setTimeout(finish, ms);
    signal.addEventListener('abort', onAbort, { once: true });
    setWake(finish);
  });
}
