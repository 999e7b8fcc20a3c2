/**
 * The webhook receiver of a verify run, built on `@card-api/webhooks`: every delivery is verified by the
 * library's handler (signature over the raw bytes, 300 s tolerance) and kept with its exact bytes, so that the
 * checks `webhook.*` can judge the run afterwards. To see a redelivery, the receiver refuses (503) the first
 * delivery of the first event once: the contract says any non-2xx answer is retried.
 */
import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { createWebhookHandler, dedupeKey, type DedupeKey } from '@card-api/webhooks';
import { decryptCardSecrets, publicKeyFingerprint } from '@card-api/webhooks/secrets';
import { canonicalJson, jsonDeeperThan, sleep, type Json, type VerifyContext } from './context.js';
import { DEFAULT_MAX_JSON_DEPTH, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from './http.js';
import { toUnits, type FlowResult } from './writes.js';

/** One delivery as received. */
export interface Delivery {
  seq: number;
  /** Order in which the request started and finished arriving (one counter for both). */
  startedAt: number;
  finishedAt: number;
  raw: Buffer;
  verified: boolean;
  reason: string | null;
  event: Json | null;
  /** The status the receiver answered. */
  answered: number;
  /** The X-Service-Signature header as received (to tell why a signature failed). */
  signature?: string;
}

export interface ReceiverOptions {
  host: string;
  port: number;
  secret: string;
  /** Refuse the first delivery of the first event once, to observe a redelivery. Default true. */
  provokeRedelivery?: boolean;
  /** Largest delivery body kept; a larger one is answered 413 and recorded as rejected. Default 8 MiB. */
  maxBodyBytes?: number;
  /** Deepest JSON nesting of a delivery; a deeper one is answered 400 and recorded as rejected. Default 64. */
  maxJsonDepth?: number;
  /** Time a delivery may take to arrive, in ms. Default 30,000. */
  requestTimeoutMs?: number;
}

/** Bytes of delivery bodies, and deliveries, a run keeps in all; past either, deliveries are answered 503 and not kept. */
const MAX_KEPT_BYTES = 64 * 1024 * 1024;
const MAX_DELIVERIES = 10_000;

export class WebhookReceiver {
  readonly deliveries: Delivery[] = [];
  /** The event refused once to provoke a redelivery, by {@link eventKey}, if any. */
  refusedEventId: DedupeKey | null = null;
  readonly #server: Server;
  readonly #options: ReceiverOptions;
  #tick = 0;
  #listeners = new Set<() => void>();

  constructor(options: ReceiverOptions) {
    this.#options = options;
    const handler = createWebhookHandler({ secrets: options.secret, dedupe: false, onUnknownEvent: () => undefined });
    const maxBody = options.maxBodyBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
    const maxDepth = options.maxJsonDepth ?? DEFAULT_MAX_JSON_DEPTH;
    let kept = 0;
    this.#server = createServer((req, res) => {
      const startedAt = ++this.#tick;
      const chunks: Buffer[] = [];
      let length = 0;
      const reject = (status: number, reason: string) => {
        if (this.deliveries.length < MAX_DELIVERIES) this.deliveries.push({ seq: this.deliveries.length + 1, startedAt, finishedAt: ++this.#tick, raw: Buffer.alloc(0), verified: false, reason, event: null, answered: status });
        res.writeHead(status, { 'content-type': 'application/json', connection: 'close' }).end(JSON.stringify({ received: false }));
        for (const listener of this.#listeners) listener();
      };
      req.on('data', (c: Buffer) => {
        length += c.length;
        if (length > maxBody) {
          req.removeAllListeners('data').removeAllListeners('end').resume();
          reject(413, `the body is larger than ${maxBody} bytes`);
          return;
        }
        chunks.push(c);
      });
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        if (kept + raw.length > MAX_KEPT_BYTES || this.deliveries.length >= MAX_DELIVERIES) return reject(503, `the receiver keeps no more deliveries (${MAX_DELIVERIES} or ${MAX_KEPT_BYTES / 1024 / 1024} MiB at most)`);
        if (jsonDeeperThan(raw.toString('utf8'), maxDepth)) return reject(400, `the body nests JSON deeper than ${maxDepth} levels`);
        kept += raw.length;
        const header = req.headers['x-service-signature'];
        void handler.handle(raw, Array.isArray(header) ? header[0] : header).then((result) => {
          const verified = result.status === 200 && 'event' in result;
          const event = verified ? ((result as { event: Json }).event ?? null) : null;
          let answered: number = verified ? 200 : result.status;
          if (verified && event && this.#options.provokeRedelivery !== false && this.refusedEventId === null && this.deliveries.every((d) => !d.verified)) {
            this.refusedEventId = eventKey(event);
            answered = 503;
          }
          this.deliveries.push({
            signature: Array.isArray(header) ? header[0] : header,
            seq: this.deliveries.length + 1,
            startedAt,
            finishedAt: ++this.#tick,
            raw,
            verified,
            reason: verified ? null : 'reason' in result ? String(result.reason) : `answered ${result.status}`,
            event,
            answered,
          });
          res.writeHead(answered, { 'content-type': 'application/json' }).end(JSON.stringify({ received: verified }));
          for (const listener of this.#listeners) listener();
        });
      });
    });
    // A delivery that trickles in is cut, not waited for.
    this.#server.requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  }

  /** Starts listening; resolves with the bound port. */
  listen(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#options.port, this.#options.host, () => {
        const address = this.#server.address();
        resolve(typeof address === 'object' && address ? address.port : this.#options.port);
      });
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#server.closeAllConnections?.();
      this.#server.close(() => resolve());
    });
  }

  /** Verified events, in arrival order (first delivery only per event). */
  events(): Json[] {
    const seen = new Set<DedupeKey>();
    const out: Json[] = [];
    for (const d of this.deliveries) {
      if (!d.verified || !d.event || seen.has(eventKey(d.event))) continue;
      seen.add(eventKey(d.event));
      out.push(d.event);
    }
    return out;
  }

  /** Bodies of the deliveries whose signature did not verify, parsed (unverified: only to name a cause). */
  rejectedEvents(): Json[] {
    const out: Json[] = [];
    for (const d of this.deliveries) {
      if (d.verified || d.raw.length === 0) continue;
      try {
        const e = JSON.parse(d.raw.toString('utf8')) as unknown;
        if (e && typeof e === 'object') out.push(e as Json);
      } catch {
        // Not JSON: nothing to match.
      }
    }
    return out;
  }

  /**
   * The likely cause of a signature that did not verify, among those the bytes can tell apart: a timestamp in
   * milliseconds, a timestamp out of tolerance, upper-case hex, a signature over re-serialized JSON or over the body
   * without `<t>.`, and, when no variant matches, another secret.
   */
  diagnose(d: Delivery): string {
    const header = d.signature ?? '';
    const t = /(?:^|,)\s*t=([^,]*)/.exec(header)?.[1]?.trim();
    const sigs = [...header.matchAll(/(?:^|,)\s*v1=([^,]*)/g)].map((m) => m[1]!.trim());
    if (!header) return 'no X-Service-Signature header';
    if (!t || sigs.length === 0) return `the header is not t=<unix_ts>,v1=<hex>`;
    const mac = (payload: Buffer) => createHmac('sha256', this.#options.secret).update(payload).digest('hex');
    const over = (ts: string, body: Buffer | string) => mac(Buffer.concat([Buffer.from(`${ts}.`), Buffer.from(body)]));
    const matches = (hex: string) => sigs.includes(hex);
    const ms = /^\d{12,}$/.test(t);
    if (matches(over(t, d.raw))) {
      if (ms) return `the timestamp ${t} is in milliseconds, not seconds (the signature itself matches)`;
      return `the timestamp ${t} is ${Math.abs(Math.round(Date.now() / 1000) - Number(t))} s from now, beyond the 300 s tolerance (the signature itself matches)`;
    }
    if (sigs.some((x) => x.toLowerCase() === over(t, d.raw))) return 'the hex digest is not lower-case';
    if (ms && matches(over(String(Math.floor(Number(t) / 1000)), d.raw))) return `the timestamp ${t} is in milliseconds, not seconds (the signature is over the seconds)`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(d.raw.toString('utf8'));
    } catch {
      parsed = undefined;
    }
    if (parsed !== undefined) {
      for (const variant of [JSON.stringify(parsed), JSON.stringify(parsed, null, 2), canonicalJson(parsed)]) {
        if (variant !== d.raw.toString('utf8') && matches(over(t, variant))) return 'the signature is over re-serialized JSON, not the raw body bytes sent';
      }
    }
    if (matches(mac(d.raw))) return `the signature is over the body alone, without the "<t>." prefix`;
    if (ms) return `the timestamp ${t} is in milliseconds, not seconds, and no variant of the body matches`;
    return 'no variant of the body or the timestamp matches: most likely signed with another secret than this endpoint\'s';
  }

  /** Whether signing is broken as a whole: deliveries came, none verified. */
  signingBroken(): boolean {
    return this.deliveries.some((d) => !d.verified && d.raw.length > 0) && !this.deliveries.some((d) => d.verified);
  }

  /**
   * `card_uuid` of the `order.completed` of `orderUuid`, waiting up to `timeoutMs` for it; null when none came. The wait
   * ends as soon as that event arrived with a signature that does not verify: then it will not come verified.
   */
  async completedCard(orderUuid: string, timeoutMs: number, signal?: AbortSignal): Promise<string | null> {
    const match = (e: Json) => e.event === 'order.completed' && e.data?.order_uuid === orderUuid;
    const find = () => this.events().find(match);
    await this.waitUntil(() => find() !== undefined || this.rejectedEvents().some(match) || this.signingBroken(), timeoutMs, signal);
    const card = find()?.data?.card_uuid;
    return typeof card === 'string' ? card : null;
  }

  /** Waits until `done()` holds or the timeout passes; true when it holds. Rejects with the signal's reason when it aborts. */
  async waitUntil(done: () => boolean, timeoutMs: number, signal?: AbortSignal): Promise<boolean> {
    if (done()) return true;
    if (signal?.aborted) throw signal.reason;
    return new Promise((resolve, rejectWait) => {
      const finish = (value: boolean) => {
        clearTimeout(timer);
        this.#listeners.delete(listener);
        signal?.removeEventListener('abort', onAbort);
        resolve(value);
      };
      const listener = () => {
        if (done()) finish(true);
      };
      const onAbort = () => {
        clearTimeout(timer);
        this.#listeners.delete(listener);
        rejectWait(signal!.reason);
      };
      const timer = setTimeout(() => finish(done()), timeoutMs);
      this.#listeners.add(listener);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/**
 * Which event a delivery carries: its `event_id`, or, for an event without one (`card.issued.secrets` may lack it,
 * D13), the business key the webhook library deduplicates it by (D38).
 */
const eventKey = (e: Json): DedupeKey => dedupeKey(e) ?? `${String(e.event)}:${canonicalJson(e.data)}`;

const evId = (e: Json) => (typeof e.event_id === 'number' ? `event_id ${e.event_id} (${e.event})` : `${e.event} ${String(eventKey(e))}`);

/** Emission order: occurred_at, then event_id. */
const before = (a: Json, b: Json): boolean => {
  const ta = Date.parse(a.occurred_at);
  const tb = Date.parse(b.occurred_at);
  return ta !== tb ? ta < tb : Number(a.event_id) < Number(b.event_id);
};

export interface WebhookCheckOptions {
  /** Longest wait for the events the flow expects, in ms. */
  waitMs: number;
  /** PEM of the RSA private key for `card.issued.secrets`, if given. */
  privateKeyPem?: string;
}

/** Waits for the flow's events, then judges every delivery. */
export async function runWebhookChecks(ctx: VerifyContext, receiver: WebhookReceiver, flow: FlowResult | null, options: WebhookCheckOptions): Promise<void> {
  const { checks, spec } = ctx;
  const forCard = (name: string) => (e: Json) => e.event === name && e.data?.card_uuid === flow?.cardUuid;
  const completedFor = (uuid: string) => (e: Json) => e.event === 'order.completed' && e.data?.order_uuid === uuid;

  // What the flow makes the server push.
  const expected: Array<[string, (e: Json) => boolean]> = [];
  if (flow?.started) {
    for (const order of flow.orders.filter((o) => o.finalStatus === 'completed')) expected.push([`order.completed for ${order.uuid}`, completedFor(order.uuid)]);
    if (flow.cardUuid) {
      for (const name of ['card.frozen', 'card.unfrozen', 'card.close_initiated']) expected.push([name, forCard(name)]);
      if (flow.closed) expected.push(['card.closed', forCard('card.closed')]);
      if (options.privateKeyPem) expected.push(['card.issued.secrets', forCard('card.issued.secrets')]);
    }
  }
  const contentOf = (e: Json) => canonicalJson({ event: e.event, occurred_at: e.occurred_at, data: e.data });
  const refused = () => receiver.deliveries.find((d) => d.verified && d.event && eventKey(d.event) === receiver.refusedEventId)?.event;
  /** The refused event came back, but under another event_id (webhook.event-id's fault). */
  const backUnderOtherId = () => {
    const r = refused();
    return r !== undefined && r !== null && receiver.deliveries.some((d) => d.verified && d.event && eventKey(d.event) !== receiver.refusedEventId && contentOf(d.event!) === contentOf(r));
  };
  const redelivered = () => receiver.refusedEventId === null || backUnderOtherId() || receiver.deliveries.filter((d) => d.verified && d.event && eventKey(d.event) === receiver.refusedEventId).length > 1;
  // An expected event that came with a bad signature will not come verified: the wait ends on it too.
  const arrived = (match: (e: Json) => boolean) => receiver.events().some(match) || receiver.rejectedEvents().some(match);
  const allArrived = () => receiver.signingBroken() || (expected.every(([, match]) => arrived(match)) && redelivered());
  ctx.log(`verify: waiting up to ${options.waitMs / 1000} s for ${expected.length} expected event(s)${receiver.refusedEventId !== null ? ' and a redelivery' : ''}`);
  await receiver.waitUntil(allArrived, options.waitMs, ctx.signal);
  await sleep(50, ctx.signal); // Let deliveries already on the wire land before judging.

  const deliveries = receiver.deliveries;
  if (deliveries.length === 0) {
    for (const id of ['webhook.signature', 'webhook.schema', 'webhook.event-id', 'webhook.redelivery-bytes']) checks.skip(id, 'no delivery reached the receiver');
  }
  // Signature and tolerance.
  for (const d of deliveries) {
    if (d.verified) checks.pass('webhook.signature', 'verified', [evId(d.event!)]);
    else checks.fail('webhook.signature', `delivery #${d.seq} rejected: ${d.reason}${d.raw.length > 0 ? `; likely cause: ${receiver.diagnose(d)}` : ''}`, [`delivery #${d.seq}`]);
  }
  const signingBroken = receiver.signingBroken();
  if (signingBroken) for (const id of ['webhook.schema', 'webhook.event-id', 'webhook.redelivery-bytes']) checks.blocked(id, 'webhook.signature', 'no delivery verified');
  const verified = deliveries.filter((d) => d.verified && d.event);
  // Schema of each event (first delivery; later ones are judged by the bytes check).
  for (const e of receiver.events()) {
    checks.expect('webhook.schema', spec.validator.webhookErrors(e).slice(0, 8).map((p) => `${evId(e)}: ${p}`), evId(e), [evId(e)]);
  }
  // One event_id per event (events without one are judged by the bytes check alone).
  const byId = new Map<number, Set<string>>();
  const byContent = new Map<string, Set<number>>();
  for (const d of verified) {
    const id = d.event!.event_id;
    if (typeof id !== 'number') continue;
    const content = canonicalJson({ event: d.event!.event, occurred_at: d.event!.occurred_at, data: d.event!.data });
    (byId.get(id) ?? byId.set(id, new Set()).get(id)!).add(content);
    (byContent.get(content) ?? byContent.set(content, new Set()).get(content)!).add(id);
  }
  for (const [id, contents] of byId) checks.expect('webhook.event-id', contents.size > 1 ? [`event_id ${id} names ${contents.size} different events`] : [], `event_id ${id}`, [`event_id ${id}`]);
  for (const ids of byContent.values()) if (ids.size > 1) checks.fail('webhook.event-id', `one event arrived under event_ids ${[...ids].join(', ')}`, [...ids].map((i) => `event_id ${i}`));
  // Redeliveries carry the same bytes.
  const rawById = new Map<DedupeKey, Buffer[]>();
  for (const d of verified) {
    const key = eventKey(d.event!);
    (rawById.get(key) ?? rawById.set(key, []).get(key)!).push(d.raw);
  }
  for (const [key, raws] of rawById) {
    if (raws.length < 2) continue;
    const id = typeof key === 'number' ? `event_id ${key}` : key;
    const same = raws.every((r) => r.equals(raws[0]!));
    checks.expect('webhook.redelivery-bytes', same ? [] : [`${id}: ${raws.length} deliveries, not byte-identical`], `${id}: ${raws.length} identical deliveries`, [id]);
  }
  if (receiver.refusedEventId !== null && backUnderOtherId() && receiver.deliveries.filter((d) => d.verified && d.event && eventKey(d.event) === receiver.refusedEventId).length < 2) {
    checks.blocked('webhook.redelivery-bytes', 'webhook.event-id', 'the refused event came back under another event_id');
  } else if (receiver.refusedEventId !== null && !redelivered()) {
    const id = typeof receiver.refusedEventId === 'number' ? `event_id ${receiver.refusedEventId}` : receiver.refusedEventId;
    checks.fail('webhook.redelivery-bytes', `${id} was answered 503 and not redelivered within ${options.waitMs / 1000} s`, [id]);
  }
  checks.skip('webhook.redelivery-bytes', 'no event was delivered twice (the redelivery probe is off or no event arrived)');

  // The flow's events.
  const flowChecks = ['webhook.order-completed', 'webhook.issue-carries-card', 'webhook.card-events', 'webhook.close-sequence', 'webhook.card-secrets'];
  if (!flow?.started) {
    for (const id of flowChecks) checks.skip(id, flow === null ? 'needs --allow-writes' : 'the write flow wrote nothing');
    return;
  }
  if (signingBroken) {
    for (const id of flowChecks) checks.blocked(id, 'webhook.signature', 'no delivery verified, so none of the flow\'s events can be judged');
    return;
  }
  /** A flow event missing because its delivery did not verify: a cascade of webhook.signature, not a fault of its own. */
  const badlySigned = (id: string, match: (e: Json) => boolean, what: string): boolean => {
    if (!receiver.rejectedEvents().some(match)) return false;
    checks.blocked(id, 'webhook.signature', `${what} arrived with a signature that does not verify`);
    return true;
  };
  const events = receiver.events();
  for (const order of flow.orders) {
    if (order.finalStatus !== 'completed') continue;
    const e = events.find(completedFor(order.uuid));
    const problems: string[] = [];
    if (!e && badlySigned('webhook.order-completed', completedFor(order.uuid), `order.completed of ${order.uuid}`)) continue;
    if (!e) problems.push(`no order.completed for ${order.type} order ${order.uuid} within ${options.waitMs / 1000} s`);
    else {
      if (e.data?.type !== order.type) problems.push(`${evId(e)}: type ${JSON.stringify(e.data?.type)}, the order is ${order.type}`);
      if (toUnits(e.data?.held_amount) === null || toUnits(e.data?.held_amount) !== toUnits(order.heldAmount)) problems.push(`${evId(e)}: held_amount ${JSON.stringify(e.data.held_amount)}, the 202 said ${JSON.stringify(order.heldAmount)}`);
      if (e.data?.currency !== order.currency) problems.push(`${evId(e)}: currency ${JSON.stringify(e.data?.currency)}, the 202 said ${JSON.stringify(order.currency)}`);
      if (order.type !== 'issue_card' && e.data?.card_uuid !== flow.cardUuid) problems.push(`${evId(e)}: card_uuid ${JSON.stringify(e.data?.card_uuid)}, expected ${flow.cardUuid}`);
    }
    checks.expect('webhook.order-completed', problems, `${order.type} ${order.uuid}`, [`X-Idempotency-Key ${order.key}`, ...(e ? [evId(e)] : [])]);
  }
  const issue = flow.orders.find((o) => o.type === 'issue_card');
  const issueEvent = issue ? events.find(completedFor(issue.uuid)) : undefined;
  if (!issue || !flow.cardUuid) checks.skip('webhook.issue-carries-card', 'no card was issued');
  else if (!issueEvent && badlySigned('webhook.issue-carries-card', completedFor(issue.uuid), `order.completed of the issue order ${issue.uuid}`)) void 0;
  else if (!issueEvent) checks.fail('webhook.issue-carries-card', `no order.completed for the issue order ${issue.uuid}`, [`X-Idempotency-Key ${issue.key}`]);
  else checks.expect('webhook.issue-carries-card', issueEvent.data?.card_uuid === flow.cardUuid ? [] : [`${evId(issueEvent)}: card_uuid ${JSON.stringify(issueEvent.data?.card_uuid)}, the order names ${flow.cardUuid}`], `card ${flow.cardUuid}`, [evId(issueEvent)]);

  if (!flow.cardUuid) {
    for (const id of ['webhook.card-events', 'webhook.close-sequence', 'webhook.card-secrets']) checks.skip(id, 'no card was issued');
    return;
  }
  const frozen = events.find(forCard('card.frozen'));
  const unfrozen = events.find(forCard('card.unfrozen'));
  if (!frozen && badlySigned('webhook.card-events', forCard('card.frozen'), 'card.frozen')) void 0;
  else checks.expect('webhook.card-events', frozen ? (frozen.data?.origin === 'workspace' ? [] : [`${evId(frozen)}: origin ${JSON.stringify(frozen.data?.origin)}, expected workspace (D9)`]) : ['no card.frozen for the flow\'s card'], 'card.frozen', frozen ? [evId(frozen)] : []);
  if (!unfrozen && badlySigned('webhook.card-events', forCard('card.unfrozen'), 'card.unfrozen')) void 0;
  else checks.expect('webhook.card-events', unfrozen ? [] : ['no card.unfrozen for the flow\'s card'], 'card.unfrozen', unfrozen ? [evId(unfrozen)] : []);

  // card.close_initiated, then order.completed of the close, then card.closed.
  const initiated = events.find(forCard('card.close_initiated'));
  const closeDone = flow.closeOrder ? events.find(completedFor(flow.closeOrder.uuid)) : undefined;
  const closed = events.find(forCard('card.closed'));
  if (!flow.closeOrder) checks.skip('webhook.close-sequence', 'the close was not accepted');
  else if ((!initiated && badlySigned('webhook.close-sequence', forCard('card.close_initiated'), 'card.close_initiated')) || (!closeDone && badlySigned('webhook.close-sequence', completedFor(flow.closeOrder.uuid), 'order.completed of the close'))) void 0;
  else if (!initiated || !closeDone) checks.fail('webhook.close-sequence', `missing ${[!initiated && 'card.close_initiated', !closeDone && 'order.completed of the close'].filter(Boolean).join(' and ')}`, [`X-Idempotency-Key ${flow.closeOrder.key}`]);
  else {
    const problems: string[] = [];
    if (!before(initiated, closeDone)) problems.push(`${evId(closeDone)} is not after ${evId(initiated)} (occurred_at, event_id)`);
    if (closed) {
      if (!before(closeDone, closed)) problems.push(`${evId(closed)} is not after ${evId(closeDone)} (occurred_at, event_id)`);
      // Stage 2 comes after stage 1 in arrival order too (retries aside, they are far apart in time).
      const first = (id: number) => receiver.deliveries.find((d) => d.verified && d.event?.event_id === id);
      const a = first(initiated.event_id);
      const c = first(closed.event_id);
      if (a && c && c.finishedAt < a.startedAt) problems.push(`${evId(closed)} arrived before ${evId(initiated)}`);
    } else if (flow.closed) problems.push('no card.closed although the card is closed');
    const evidence = [initiated, closeDone, ...(closed ? [closed] : [])].map(evId);
    if (closed && flow.closeBalance !== null) {
      const refund = closed.data?.refund_amount;
      checks.expect('money.close-refund', toUnits(refund) !== toUnits(flow.closeBalance) || toUnits(refund) === null ? [`${evId(closed)}: refund_amount ${JSON.stringify(refund)}, the card held ${flow.closeBalance} when closed`] : [], `card.closed refund_amount ${String(refund)}`, [evId(closed)]);
    }
    if (!closed && !flow.closed && problems.length === 0) checks.pass('webhook.close-sequence', 'card.close_initiated then order.completed (stage 2 not reached)', evidence);
    else checks.expect('webhook.close-sequence', problems, 'close_initiated, order.completed, closed', evidence);
  }

  // The card secrets.
  if (!options.privateKeyPem) {
    checks.skip('webhook.card-secrets', 'needs --private-key (and the workspace\'s RSA public key uploaded)');
    return;
  }
  const secretsEvent = events.find(forCard('card.issued.secrets'));
  if (!secretsEvent) {
    checks.fail('webhook.card-secrets', 'no card.issued.secrets for the flow\'s card', []);
    return;
  }
  const problems: string[] = [];
  try {
    const fingerprint = await publicKeyFingerprint(options.privateKeyPem);
    if (secretsEvent.data?.key_fingerprint !== fingerprint) problems.push(`${evId(secretsEvent)}: key_fingerprint is not the fingerprint of the given key (D15)`);
    const secrets = await decryptCardSecrets(String(secretsEvent.data?.secrets_jwe), options.privateKeyPem);
    const card = flow.card ?? {};
    if (typeof card.pan_last4 === 'string' && !secrets.pan.endsWith(card.pan_last4)) problems.push(`${evId(secretsEvent)}: the decrypted PAN does not end in the card's pan_last4`);
    if (typeof card.pan_bin === 'string' && !secrets.pan.startsWith(card.pan_bin)) problems.push(`${evId(secretsEvent)}: the decrypted PAN does not start with the card's pan_bin`);
  } catch (error) {
    // CardSecretsError messages name reasons only, never the plaintext.
    problems.push(`${evId(secretsEvent)}: ${(error as { reason?: string }).reason ?? 'error'}: ${(error as Error).message}`);
  }
  checks.expect('webhook.card-secrets', problems, 'decrypted; shape valid; PAN matches the card', [evId(secretsEvent)]);
}
