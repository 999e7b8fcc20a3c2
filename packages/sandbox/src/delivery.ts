import http from 'node:http';
import https from 'node:https';
// Relative imports until the generated `@card-api/webhooks` package lands; then switch to it.
import { signPayload } from '@card-api/webhooks';
import { encryptCardSecrets } from '@card-api/webhooks/secrets';
import type { Context } from './context.js';
import { SandboxError } from './errors.js';
import { recordEvent } from './events.js';
import { loadCard } from './orders.js';
import { DELIVERY_STATUSES, type CardSecrets, type DeliveryStatus, type WebhookDelivery } from './types.js';
import { disableEndpointRow, endpointForDelivery, hasSecretsSubscriber, loadPublicKey } from './webhooks.js';

/** D19: redelivery after 10 s, 30 s, 2 min, 10 min, 1 h, 3 h, 6 h. */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [10_000, 30_000, 120_000, 600_000, 3_600_000, 10_800_000, 21_600_000];
/** D19: an endpoint is disabled after 8 failed attempts of one delivery. */
export const DEFAULT_MAX_ATTEMPTS = 8;
/** Real-time limit of one attempt. */
export const DEFAULT_DELIVERY_TIMEOUT_MS = 10_000;

/** One HTTP attempt as the transport sees it. */
export interface WebhookRequest {
  url: string;
  /** The stored envelope; sent as UTF-8, unchanged. */
  body: string;
  headers: Record<string, string>;
  timeoutMs: number;
  /** Aborted when the sandbox closes. */
  signal: AbortSignal;
}

/**
 * Sends one delivery and resolves with the HTTP status (any status: the worker decides what
 * acknowledges); rejects on a network error or timeout. The default is `httpTransport`.
 */
export type WebhookTransport = (request: WebhookRequest) => Promise<{ status: number }>;

/**
 * The default transport: one `node:http(s)` request per attempt on a fresh connection (no
 * keep-alive pool, so a receiver that restarts never meets a stale socket), an overall
 * deadline of `timeoutMs`, no redirects followed (a 3xx is not an acknowledgement), and the
 * response body drained and ignored.
 */
export const httpTransport: WebhookTransport = (request) =>
  new Promise((resolve, reject) => {
    const url = new URL(request.url);
    const client = url.protocol === 'https:' ? https : http;
    let settled = false;
    const finish = (fn: () => void): void => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      fn();
    };
    const req = client.request(url, {
      method: 'POST',
      agent: false,
      signal: request.signal,
      headers: { ...request.headers, 'Content-Length': String(Buffer.byteLength(request.body)) },
    });
    const deadline = setTimeout(() => req.destroy(new Error(`timed out after ${request.timeoutMs} ms`)), request.timeoutMs);
    req.on('response', (res) => {
      // The status is the answer; the body is read only to let the connection finish cleanly.
      res.on('error', () => undefined);
      res.resume();
      res.on('end', () => clearTimeout(deadline));
      finish(() => resolve({ status: res.statusCode ?? 0 }));
    });
    req.on('error', (error) => finish(() => reject(error)));
    req.end(request.body);
  });

/** Filter of `deliveries.list`. */
export interface DeliveryListQuery {
  workspaceId?: number;
  endpointId?: number;
  eventId?: number;
  event?: string;
  status?: DeliveryStatus;
  /** Only the newest `limit` deliveries that match (still listed oldest first). */
  limit?: number;
}

/** What one `deliveries.runDue()` did. */
export interface DeliveryRunResult {
  /** `card.issued.secrets` events encrypted and recorded. */
  secretsEvents: number;
  /** HTTP attempts made. */
  attempts: number;
  /** Of those, acknowledged with a 2xx. */
  succeeded: number;
  /** Of those, failed (non-2xx, network error, timeout). */
  failed: number;
}

interface DeliveryRow {
  id: number;
  workspace_id: number;
  endpoint_id: number;
  event_id: number;
  event: string;
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at_ms: number | null;
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
}

function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    workspace_id: row.workspace_id,
    endpoint_id: row.endpoint_id,
    event_id: row.event_id,
    event: row.event,
    body: row.body,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.next_attempt_at_ms === null ? null : new Date(row.next_attempt_at_ms).toISOString(),
    last_attempt_at: row.last_attempt_at,
    last_status: row.last_status,
    last_error: row.last_error,
    delivered_at: row.delivered_at,
    created_at: row.created_at,
  };
}

/**
 * Webhook delivery (contract 6.2, 6.3, D19). Every event recorded while an endpoint subscribes
 * to it gets one delivery row; the worker POSTs its stored body with a fresh signature, and
 * retries on the sandbox clock. Never called from a REST-facing service: sending happens in the
 * background (with `autoRun`) or in `runDue`.
 *
 * Each endpoint is its own queue: at most `webhookMaxInFlightPerEndpoint` attempts of one endpoint are in
 * flight, at most `webhookMaxInFlight` in all, and free slots go round-robin over workspaces and their
 * endpoints, so a receiver that hangs only ever holds its own slots, each until the attempt's timeout.
 */
export interface DeliveriesService {
  /** Deliveries, oldest first, optionally filtered. For tests and inspection. */
  list(query?: DeliveryListQuery): WebhookDelivery[];
  /** One delivery; 404 `api.not_found` when unknown. */
  get(deliveryId: number): WebhookDelivery;
  /**
   * Runs the due asynchronous work at the current clock time: encrypts and records pending
   * `card.issued.secrets` events, then attempts every delivery whose next attempt is due
   * (including those that became due while running). Resolves when every attempt has an outcome.
   */
  runDue(): Promise<DeliveryRunResult>;
  /**
   * Queues one delivery to be sent now ("resend") and returns it at once, without waiting for the attempt:
   * a pending delivery skips its wait; a `failed` or `cancelled` one is queued again with its attempt count
   * reset, provided its endpoint is active (409 `card.state_conflict` otherwise); a `succeeded` one is sent
   * again, a deliberate duplicate for testing a receiver's deduplication. The attempt goes out in the
   * background with `autoRun` (else on the next `runDue`); `get` / `list` show its progress.
   */
  resend(deliveryId: number): WebhookDelivery;
  /** `resend`, then waits for that delivery's attempt (not for other endpoints) and resolves with the delivery after it. */
  deliverNow(deliveryId: number): Promise<WebhookDelivery>;
}

/** Attempts of one endpoint in flight at once, by default. */
export const DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT = 4;
/** Attempts in flight at once over every endpoint, by default. */
export const DEFAULT_MAX_IN_FLIGHT = 64;

/** Tuning of the worker (resolved options of the sandbox). */
export interface DeliveryWorkerOptions {
  /** Start attempts in the background as soon as they are due (the sandbox's `autoRun`). */
  autoRun: boolean;
  maxInFlightPerEndpoint: number;
  maxInFlight: number;
}

/** The worker behind `DeliveriesService`, with the hooks the sandbox's scheduler needs. */
export interface DeliveryWorker extends DeliveriesService {
  /**
   * Earliest due time (epoch ms, sandbox clock) of work the worker could start now: secrets jobs (due at once)
   * and pending deliveries of endpoints with a free slot; null when none. Deliveries of a saturated endpoint
   * are left out: the end of one of its attempts starts the next, so a timer need not poll for them.
   */
  nextDueMs(): number | null;
  /** Whether attempts or a secrets run are in progress. */
  readonly running: boolean;
  /** With `autoRun`: starts what is due soon after the current call stack (never inside a caller's write). */
  kick(): void;
  /**
   * Tells the worker that the clock jumped from `fromMs` to `toMs` (`advance`). A delivery that fell due inside
   * the jump is attempted as if at its due time: its retry waits count from there, so retries that also fall
   * inside the jump follow at once, as they would have while the time passed.
   */
  noteJump(fromMs: number, toMs: number): void;
  /** Aborts attempts in flight; their rows stay `sending` and are resumed by the next start. */
  close(): void;
}

/** Jumps remembered for `noteJump` (older ones only matter to deliveries due that long ago). */
const JUMPS_KEPT = 64;

/**
 * On a database shared by replicas, a `sending` row whose claim is older (in real time) than the attempt timeout
 * plus this belongs to a replica that died mid-attempt, and another one takes it over (see `releaseAbandoned`). It
 * also absorbs a small skew between the replicas' machine clocks.
 */
const SENDING_LEASE_MARGIN_MS = 5000;

interface Slot {
  /** Due time the attempt is treated as starting at (its own due time inside a jump, else the claim time). */
  startMs: number;
  /** Sandbox time of the claim. */
  claimedMs: number;
}

/**
 * Creates the worker. Attempts that were in flight when a previous process stopped (rows left
 * `sending`) are put back to `pending` at once, with no attempt counted: they went out at most
 * once more, which the contract allows ("duplicate deliveries are possible").
 */
export function createDeliveryWorker(ctx: Context, transport: WebhookTransport, onError: (error: unknown) => void, tuning: DeliveryWorkerOptions): DeliveryWorker {
  /**
   * Puts rows left `sending` by a stopped process back to `pending`: every one at start when this process alone uses
   * the database; on a shared one (replicas) only those claimed longer ago than an attempt can last, since the
   * others are attempts of live replicas. Looked for before writing, since a write re-arms the scheduler.
   */
  const wallNowMs = (): number => ctx.clock.wallNow?.() ?? ctx.nowMs();
  const releaseAbandoned = (): void => {
    const release = `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at_ms = COALESCE(next_attempt_at_ms, ?) WHERE status = 'sending'`;
    if (ctx.db.shared !== true) {
      ctx.write(() => ctx.db.prepare(release).run(ctx.nowMs()));
      return;
    }
    // Real time, not the sandbox clock: advancing the clock must not make attempts in flight look abandoned.
    const wallNow = wallNowMs();
    if (ctx.db.prepare(`SELECT 1 FROM webhook_deliveries WHERE status = 'sending' AND COALESCE(claim_expires_at_ms, 0) < ? LIMIT 1`).get(wallNow) === undefined) return;
    ctx.write(() => ctx.db.prepare(`${release} AND COALESCE(claim_expires_at_ms, 0) < ?`).run(ctx.nowMs(), wallNow));
  };
  releaseAbandoned();
  const abort = new AbortController();
  const perEndpoint = new Map<number, number>();
  const inFlight = new Set<Promise<boolean>>();
  const jumps: [number, number][] = [];
  /** Collectors of the `runDue` calls in progress: every finished attempt is counted in each. */
  const collectors = new Set<DeliveryRunResult>();
  let secretsRun: Promise<number> | null = null;
  let kickScheduled = false;
  /** Round-robin cursor over workspaces, so that no workspace always goes first. */
  let lastWorkspace = -1;

  const load = (id: number): DeliveryRow | undefined => ctx.db.prepare<[number], DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = ?').get(id);
  const isOpen = (): boolean => !abort.signal.aborted && ctx.db.open;

  /** Encrypts and records each queued `card.issued.secrets`; the JWE is made before the write transaction, since encryption is async. */
  const runSecretsJobs = async (): Promise<number> => {
    let recorded = 0;
    const jobs = ctx.db.prepare<[], { card_uuid: string; workspace_id: number }>('SELECT card_uuid, workspace_id FROM secrets_event_jobs ORDER BY rowid').all();
    for (const job of jobs) {
      const key = loadPublicKey(ctx, job.workspace_id);
      const secrets = ctx.db.prepare<[string], CardSecrets>('SELECT pan, cvv, expiry_month, expiry_year FROM card_secrets WHERE card_uuid = ?').get(job.card_uuid);
      let jwe: string | undefined;
      if (key !== null && secrets !== undefined) {
        try {
          jwe = await encryptCardSecrets(secrets, key.public_key_pem);
        } catch (error) {
          // CardSecretsError messages name fields and reasons only, never values.
          onError(error);
        }
      }
      if (!isOpen()) return recorded;
      ctx.write(() => {
        if (ctx.db.prepare('SELECT 1 FROM secrets_event_jobs WHERE card_uuid = ?').get(job.card_uuid) === undefined) return; // another run took it
        const current = loadPublicKey(ctx, job.workspace_id);
        const card = loadCard(ctx, job.card_uuid);
        // A key replaced while encrypting: keep the job, the next run encrypts for the new key.
        if (jwe !== undefined && current !== null && key !== null && current.key_fingerprint !== key.key_fingerprint) return;
        ctx.db.prepare('DELETE FROM secrets_event_jobs WHERE card_uuid = ?').run(job.card_uuid);
        if (jwe === undefined || current === null || card === undefined || !hasSecretsSubscriber(ctx, job.workspace_id)) return;
        recordEvent(ctx, job.workspace_id, 'card.issued.secrets', {
          card_uuid: card.uuid,
          card_id: card.id,
          card_last4: card.pan_last4,
          card_bin: card.pan_bin,
          secrets_jwe: jwe,
          key_fingerprint: current.key_fingerprint,
        });
        recorded++;
      });
    }
    return recorded;
  };

  /** One secrets run at a time; a call during a run waits for it and then runs again. */
  const secrets = (): Promise<number> => {
    const run = (secretsRun ?? Promise.resolve(0)).then(
      () => runSecretsJobs(),
      () => runSecretsJobs(),
    );
    const tracked = run.finally(() => {
      if (secretsRun === tracked) secretsRun = null;
    });
    secretsRun = tracked;
    return tracked;
  };

  const hasSecretsJobs = (): boolean => ctx.db.prepare('SELECT 1 FROM secrets_event_jobs LIMIT 1').get() !== undefined;

  /** Oldest due time per endpoint with pending deliveries (the head of each queue). */
  const heads = (untilMs: number | null): { endpoint_id: number; workspace_id: number; due: number }[] =>
    untilMs === null
      ? ctx.db.prepare<[], { endpoint_id: number; workspace_id: number; due: number }>(`SELECT endpoint_id, workspace_id, MIN(next_attempt_at_ms) AS due FROM webhook_deliveries WHERE status = 'pending' GROUP BY endpoint_id, workspace_id`).all()
      : ctx.db
          .prepare<[number], { endpoint_id: number; workspace_id: number; due: number }>(
            `SELECT endpoint_id, workspace_id, MIN(next_attempt_at_ms) AS due FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at_ms <= ? GROUP BY endpoint_id, workspace_id`,
          )
          .all(untilMs);

  const freeSlots = (endpointId: number): number => tuning.maxInFlightPerEndpoint - (perEndpoint.get(endpointId) ?? 0);

  /** Whether `dueMs` fell inside a jump of the clock (see `noteJump`). */
  const jumpedOver = (dueMs: number): boolean => jumps.some(([from, to]) => dueMs > from && dueMs <= to);

  /**
   * Claims due deliveries into free slots (one write transaction, so two runners never send the same row) and
   * starts their attempts. Fairness: each pass gives one slot to each workspace in turn (starting after the one
   * served first last time), and within a workspace to its endpoint whose queue head is oldest.
   */
  const pump = (): void => {
    if (!isOpen()) return;
    if (ctx.db.shared === true) releaseAbandoned();
    const now = ctx.nowMs();
    const started: { row: DeliveryRow; slot: Slot }[] = [];
    let free = tuning.maxInFlight - inFlight.size;
    if (free <= 0) return;
    const byWorkspace = new Map<number, { endpoint_id: number; due: number }[]>();
    for (const head of heads(now)) {
      if (freeSlots(head.endpoint_id) <= 0) continue;
      const list = byWorkspace.get(head.workspace_id) ?? [];
      list.push(head);
      byWorkspace.set(head.workspace_id, list);
    }
    // Nothing to claim: no write (a write would re-arm the scheduler, which kicks the worker again).
    if (byWorkspace.size === 0) return;
    ctx.write(() => {
      for (const list of byWorkspace.values()) list.sort((a, b) => a.due - b.due || a.endpoint_id - b.endpoint_id);
      const ids = [...byWorkspace.keys()].sort((a, b) => a - b);
      const first = ids.findIndex((id) => id > lastWorkspace);
      const order = first <= 0 ? ids : [...ids.slice(first), ...ids.slice(0, first)];
      lastWorkspace = order[0]!;
      const next = ctx.db.prepare<[number, number], DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE endpoint_id = ? AND status = 'pending' AND next_attempt_at_ms <= ? ORDER BY next_attempt_at_ms, id LIMIT 1`);
      const mark = ctx.db.prepare(`UPDATE webhook_deliveries SET status = 'sending', updated_at = ?, claim_expires_at_ms = ? WHERE id = ?`);
      const claimExpires = wallNowMs() + ctx.options.webhookTimeoutMs + SENDING_LEASE_MARGIN_MS;
      const nowIso = ctx.nowIso();
      const taken = new Map<number, number>();
      const exhausted = new Set<number>();
      let progress = true;
      while (free > 0 && progress) {
        progress = false;
        for (const workspaceId of order) {
          if (free <= 0) break;
          const endpoints = byWorkspace.get(workspaceId)!;
          for (let i = 0; i < endpoints.length; i++) {
            // Rotate within the workspace too: the endpoint served goes to the back of its list.
            const head = endpoints[i]!;
            if (exhausted.has(head.endpoint_id) || freeSlots(head.endpoint_id) - (taken.get(head.endpoint_id) ?? 0) <= 0) continue;
            const row = next.get(head.endpoint_id, now);
            if (row === undefined) {
              exhausted.add(head.endpoint_id);
              continue;
            }
            mark.run(nowIso, claimExpires, row.id);
            taken.set(head.endpoint_id, (taken.get(head.endpoint_id) ?? 0) + 1);
            const due = row.next_attempt_at_ms ?? now;
            started.push({ row, slot: { startMs: due < now && jumpedOver(due) ? due : now, claimedMs: now } });
            endpoints.push(...endpoints.splice(i, 1));
            free--;
            progress = true;
            break;
          }
        }
      }
    });
    for (const { row, slot } of started) launch(row, slot);
  };

  const launch = (row: DeliveryRow, slot: Slot): void => {
    perEndpoint.set(row.endpoint_id, (perEndpoint.get(row.endpoint_id) ?? 0) + 1);
    const run = attempt(row, slot)
      .catch((error: unknown) => {
        onError(error);
        return false;
      })
      .then((ok) => {
        inFlight.delete(run);
        const left = (perEndpoint.get(row.endpoint_id) ?? 1) - 1;
        if (left <= 0) perEndpoint.delete(row.endpoint_id);
        else perEndpoint.set(row.endpoint_id, left);
        for (const result of collectors) {
          result.attempts++;
          if (ok) result.succeeded++;
          else result.failed++;
        }
        // The slot is free: the endpoint's next delivery (or another endpoint's) may start.
        if (tuning.autoRun) kick();
        return ok;
      });
    inFlight.add(run);
  };

  const record = (row: DeliveryRow, slot: Slot, attemptedAt: string, outcome: { status: number | null; error: string | null }): boolean => {
    const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300;
    ctx.write(() => {
      const attempts = row.attempts + 1;
      const now = ctx.nowIso();
      const endpoint = endpointForDelivery(ctx, row.endpoint_id);
      let status: DeliveryStatus;
      let next: number | null = null;
      if (ok) status = 'succeeded';
      else if (endpoint?.status !== 'active') status = 'cancelled';
      else if (attempts >= ctx.options.webhookMaxAttempts) status = 'failed';
      else {
        status = 'pending';
        const schedule = ctx.options.webhookRetryScheduleMs;
        // The wait counts from the end of the attempt, measured from where it is treated as starting.
        next = slot.startMs + (ctx.nowMs() - slot.claimedMs) + (schedule[Math.min(attempts - 1, schedule.length - 1)] ?? 0);
      }
      ctx.db
        .prepare(
          `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at_ms = ?, last_attempt_at = ?, last_status = ?, last_error = ?, delivered_at = ?, updated_at = ? WHERE id = ? AND status = 'sending'`,
        )
        .run(status, attempts, next, attemptedAt, outcome.status, ok ? null : outcome.error, ok ? now : null, now, row.id);
      if (status === 'failed') disableEndpointRow(ctx, row.endpoint_id, 'failing');
    });
    return ok;
  };

  const attempt = async (row: DeliveryRow, slot: Slot): Promise<boolean> => {
    const endpoint = endpointForDelivery(ctx, row.endpoint_id);
    const attemptedAt = new Date(slot.startMs).toISOString();
    if (endpoint === undefined || endpoint.status !== 'active') return record(row, slot, attemptedAt, { status: null, error: 'endpoint disabled' });
    // A fresh timestamp on every attempt over the stored bytes (6.2): real time when the clock knows it, so that
    // a receiver on a real clock accepts it after `advance`; the manual clock's own time otherwise.
    const signature = signPayload(row.body, endpoint.secret, { timestamp: Math.floor((ctx.clock.wallNow?.() ?? ctx.nowMs()) / 1000) });
    const timeoutMs = ctx.options.webhookTimeoutMs;
    // The attempt's own signal: aborted by its deadline or by close. The worker stops waiting at the deadline
    // whatever the transport does, so a transport that ignores the signal still cannot hold the slot.
    const own = new AbortController();
    const onClose = (): void => own.abort(abort.signal.reason);
    abort.signal.addEventListener('abort', onClose, { once: true });
    let deadline: NodeJS.Timeout | undefined;
    let outcome: { status: number | null; error: string | null };
    try {
      const timedOut = new Promise<never>((_, reject) => {
        deadline = setTimeout(() => {
          const error = new Error(`timed out after ${timeoutMs} ms`);
          own.abort(error);
          reject(error);
        }, timeoutMs);
      });
      const response = await Promise.race([
        transport({
          url: endpoint.url,
          body: row.body,
          headers: { 'Content-Type': 'application/json', 'X-Service-Signature': signature, 'User-Agent': 'card-api-sandbox-webhooks/1' },
          timeoutMs,
          signal: own.signal,
        }),
        timedOut,
      ]);
      outcome = { status: response.status, error: `HTTP ${response.status}` };
    } catch (error) {
      outcome = { status: null, error: describe(error) };
    } finally {
      clearTimeout(deadline);
      abort.signal.removeEventListener('abort', onClose);
    }
    // Closed mid-flight: leave the row `sending`, the next start resumes it.
    if (!isOpen()) return false;
    return record(row, slot, attemptedAt, outcome);
  };

  const kick = (): void => {
    if (kickScheduled || !isOpen()) return;
    kickScheduled = true;
    setImmediate(() => {
      kickScheduled = false;
      if (!isOpen()) return;
      try {
        // Jobs queued while a run encrypts are picked up by the kick at its end.
        if (secretsRun === null && hasSecretsJobs()) {
          void secrets()
            .catch(onError)
            .finally(() => {
              if (tuning.autoRun) kick();
            });
        }
        pump();
      } catch (error) {
        onError(error);
      }
    });
  };

  const worker: DeliveryWorker = {
    get running() {
      return inFlight.size > 0 || secretsRun !== null;
    },
    list(query = {}) {
      const conditions: [string, string | number | undefined][] = [
        ['workspace_id = ?', query.workspaceId],
        ['endpoint_id = ?', query.endpointId],
        ['event_id = ?', query.eventId],
        ['event = ?', query.event],
        ['status = ?', query.status],
      ];
      if (query.status !== undefined && !(DELIVERY_STATUSES as readonly string[]).includes(query.status)) throw new SandboxError(422, 'validation.failed', 'Unknown delivery status.', { status: [`must be one of ${DELIVERY_STATUSES.join(', ')}`] });
      const active = conditions.filter(([, v]) => v !== undefined);
      const where = active.length === 0 ? '' : `WHERE ${active.map(([sql]) => sql).join(' AND ')}`;
      const values = active.map(([, v]) => v as string | number);
      if (query.limit === undefined) return ctx.db.prepare<(string | number)[], DeliveryRow>(`SELECT * FROM webhook_deliveries ${where} ORDER BY id`).all(...values).map(toDelivery);
      return ctx.db
        .prepare<(string | number)[], DeliveryRow>(`SELECT * FROM (SELECT * FROM webhook_deliveries ${where} ORDER BY id DESC LIMIT ?) ORDER BY id`)
        .all(...values, query.limit)
        .map(toDelivery);
    },
    get(deliveryId) {
      const row = load(deliveryId);
      if (row === undefined) throw new SandboxError(404, 'api.not_found', `No delivery ${String(deliveryId)}.`);
      return toDelivery(row);
    },
    async runDue() {
      const result: DeliveryRunResult = { secretsEvents: 0, attempts: 0, succeeded: 0, failed: 0 };
      collectors.add(result);
      try {
        result.secretsEvents = await secrets();
        // Bounded: every round starts attempts or waits for one to end.
        for (let round = 0; round < 1_000_000 && isOpen(); round++) {
          pump();
          if (inFlight.size === 0) break;
          await Promise.race(inFlight);
        }
      } finally {
        collectors.delete(result);
      }
      return result;
    },
    resend(deliveryId) {
      ctx.write(() => {
        const row = load(deliveryId);
        if (row === undefined) throw new SandboxError(404, 'api.not_found', `No delivery ${String(deliveryId)}.`);
        const endpoint = endpointForDelivery(ctx, row.endpoint_id);
        if (endpoint?.status !== 'active') throw new SandboxError(409, 'card.state_conflict', `The endpoint of delivery ${deliveryId} is disabled.`);
        // A delivery being sent is left alone: its attempt is already on its way.
        if (row.status === 'pending') ctx.db.prepare('UPDATE webhook_deliveries SET next_attempt_at_ms = ?, updated_at = ? WHERE id = ?').run(ctx.nowMs(), ctx.nowIso(), deliveryId);
        else if (row.status === 'failed' || row.status === 'cancelled') {
          ctx.db.prepare(`UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at_ms = ?, updated_at = ? WHERE id = ?`).run(ctx.nowMs(), ctx.nowIso(), deliveryId);
        } else if (row.status === 'succeeded') {
          // A deliberate duplicate (at-least-once delivery, 6.3): the receiver must drop it by event_id.
          ctx.db.prepare(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at_ms = ?, updated_at = ? WHERE id = ?`).run(ctx.nowMs(), ctx.nowIso(), deliveryId);
        }
      });
      if (tuning.autoRun) kick();
      return worker.get(deliveryId);
    },
    async deliverNow(deliveryId) {
      const before = worker.resend(deliveryId);
      const attempted = (): boolean => {
        const row = load(deliveryId);
        return row === undefined || (row.status !== 'sending' && (row.status !== 'pending' || row.attempts !== before.attempts));
      };
      // Bounded: every round starts attempts or waits for one to end (not necessarily this one's: any frees a slot).
      for (let round = 0; round < 1_000_000 && isOpen() && !attempted(); round++) {
        pump();
        if (attempted() || inFlight.size === 0) break;
        await Promise.race(inFlight);
      }
      return worker.get(deliveryId);
    },
    nextDueMs() {
      if (!ctx.db.open) return null;
      // While a secrets run is in progress its end kicks again: no timer needed (it would fire in a loop).
      if (secretsRun === null && hasSecretsJobs()) return ctx.nowMs();
      if (inFlight.size >= tuning.maxInFlight) return null;
      let due: number | null = null;
      for (const head of heads(null)) if (freeSlots(head.endpoint_id) > 0 && (due === null || head.due < due)) due = head.due;
      return due;
    },
    kick,
    noteJump(fromMs, toMs) {
      if (!(toMs > fromMs)) return;
      const last = jumps[jumps.length - 1];
      if (last !== undefined && last[1] === fromMs) last[1] = toMs;
      else jumps.push([fromMs, toMs]);
      if (jumps.length > JUMPS_KEPT) jumps.shift();
    },
    close() {
      abort.abort();
    },
  };
  return worker;
}

/** A short, secret-free description of a failed attempt. */
function describe(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return (typeof code === 'string' && !error.message.includes(code) ? `${code}: ${error.message}` : error.message).slice(0, 200);
  }
  return 'delivery failed';
}
