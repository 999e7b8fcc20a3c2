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

/**
 * Webhook delivery (contract 6.2, 6.3, D19). Every event recorded while an endpoint subscribes
 * to it gets one delivery row; the worker POSTs its stored body with a fresh signature, and
 * retries on the sandbox clock. Never called from a REST-facing service: sending happens only
 * in `runDue` (the sandbox's timer calls it with `autoRun`).
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
   * Makes one delivery due now and runs the due work ("resend"): a pending delivery skips its
   * wait; a `failed` or `cancelled` one is queued again with its attempt count reset, provided
   * its endpoint is active (409 `card.state_conflict` otherwise); a `succeeded` one is sent again,
   * a deliberate duplicate for testing a receiver's deduplication. Resolves with the delivery after the run.
   */
  deliverNow(deliveryId: number): Promise<WebhookDelivery>;
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

/** The worker behind `DeliveriesService`, with the hooks the sandbox's scheduler needs. */
export interface DeliveryWorker extends DeliveriesService {
  /** Earliest due time of asynchronous work (epoch ms; secrets jobs are due at once), or null. */
  nextDueMs(): number | null;
  /** Whether a `runDue` is in progress. */
  readonly running: boolean;
  /** Aborts attempts in flight; their rows stay `sending` and are resumed by the next start. */
  close(): void;
}

/** Rows claimed per round; a round's attempts run concurrently. */
const BATCH = 32;

/**
 * Creates the worker. Attempts that were in flight when a previous process stopped (rows left
 * `sending`) are put back to `pending` at once, with no attempt counted: they went out at most
 * once more, which the contract allows ("duplicate deliveries are possible").
 */
export function createDeliveryWorker(ctx: Context, transport: WebhookTransport, onError: (error: unknown) => void): DeliveryWorker {
  ctx.write(() => ctx.db.prepare(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at_ms = COALESCE(next_attempt_at_ms, ?) WHERE status = 'sending'`).run(ctx.nowMs()));
  const abort = new AbortController();
  let active: Promise<DeliveryRunResult> | null = null;

  const load = (id: number): DeliveryRow | undefined => ctx.db.prepare<[number], DeliveryRow>('SELECT * FROM webhook_deliveries WHERE id = ?').get(id);

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
      if (abort.signal.aborted || !ctx.db.open) return recorded;
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

  /** Claims the due rows (a write transaction, so two runners never send the same row). */
  const claim = (): DeliveryRow[] =>
    ctx.write(() => {
      const rows = ctx.db.prepare<[number, number], DeliveryRow>(`SELECT * FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at_ms <= ? ORDER BY next_attempt_at_ms, id LIMIT ?`).all(ctx.nowMs(), BATCH);
      const mark = ctx.db.prepare(`UPDATE webhook_deliveries SET status = 'sending', updated_at = ? WHERE id = ?`);
      for (const row of rows) mark.run(ctx.nowIso(), row.id);
      return rows;
    });

  const record = (row: DeliveryRow, attemptedAt: string, outcome: { status: number | null; error: string | null }): boolean => {
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
        next = ctx.nowMs() + (schedule[Math.min(attempts - 1, schedule.length - 1)] ?? 0);
      }
      ctx.db
        .prepare(
          `UPDATE webhook_deliveries SET status = ?, attempts = ?, next_attempt_at_ms = ?, last_attempt_at = ?, last_status = ?, last_error = ?, delivered_at = ?, updated_at = ? WHERE id = ?`,
        )
        .run(status, attempts, next, attemptedAt, outcome.status, ok ? null : outcome.error, ok ? now : null, now, row.id);
      if (status === 'failed') disableEndpointRow(ctx, row.endpoint_id, 'failing');
    });
    return ok;
  };

  const attempt = async (row: DeliveryRow): Promise<boolean> => {
    const endpoint = endpointForDelivery(ctx, row.endpoint_id);
    const attemptedAt = ctx.nowIso();
    if (endpoint === undefined || endpoint.status !== 'active') {
      record(row, attemptedAt, { status: null, error: 'endpoint disabled' });
      return false;
    }
    // A fresh timestamp on every attempt over the stored bytes (6.2): real time when the clock knows it, so that
    // a receiver on a real clock accepts it after `advance`; the manual clock's own time otherwise.
    const signature = signPayload(row.body, endpoint.secret, { timestamp: Math.floor((ctx.clock.wallNow?.() ?? ctx.nowMs()) / 1000) });
    let outcome: { status: number | null; error: string | null };
    try {
      const response = await transport({
        url: endpoint.url,
        body: row.body,
        headers: { 'Content-Type': 'application/json', 'X-Service-Signature': signature, 'User-Agent': 'card-api-sandbox-webhooks/1' },
        timeoutMs: ctx.options.webhookTimeoutMs,
        signal: abort.signal,
      });
      outcome = { status: response.status, error: `HTTP ${response.status}` };
    } catch (error) {
      outcome = { status: null, error: describe(error) };
    }
    // Closed mid-flight: leave the row `sending`, the next start resumes it.
    if (abort.signal.aborted || !ctx.db.open) return false;
    return record(row, attemptedAt, outcome);
  };

  const runOnce = async (): Promise<DeliveryRunResult> => {
    const result: DeliveryRunResult = { secretsEvents: 0, attempts: 0, succeeded: 0, failed: 0 };
    result.secretsEvents = await runSecretsJobs();
    for (let round = 0; round < 10_000 && !abort.signal.aborted && ctx.db.open; round++) {
      const rows = claim();
      if (rows.length === 0) break;
      const outcomes = await Promise.all(rows.map(attempt));
      result.attempts += outcomes.length;
      result.succeeded += outcomes.filter(Boolean).length;
      result.failed += outcomes.filter((o) => !o).length;
    }
    return result;
  };

  const worker: DeliveryWorker = {
    get running() {
      return active !== null;
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
      return ctx.db.prepare<(string | number)[], DeliveryRow>(`SELECT * FROM webhook_deliveries ${where} ORDER BY id`).all(...active.map(([, v]) => v as string | number)).map(toDelivery);
    },
    get(deliveryId) {
      const row = load(deliveryId);
      if (row === undefined) throw new SandboxError(404, 'api.not_found', `No delivery ${String(deliveryId)}.`);
      return toDelivery(row);
    },
    runDue() {
      // One run at a time; a call during a run waits for it and then runs again, so that work
      // queued meanwhile is not left for a later tick.
      const run = (active ?? Promise.resolve()).then(
        () => runOnce(),
        () => runOnce(),
      );
      const tracked = run.finally(() => {
        if (active === tracked) active = null;
      });
      active = tracked;
      return tracked;
    },
    async deliverNow(deliveryId) {
      ctx.write(() => {
        const row = load(deliveryId);
        if (row === undefined) throw new SandboxError(404, 'api.not_found', `No delivery ${String(deliveryId)}.`);
        const endpoint = endpointForDelivery(ctx, row.endpoint_id);
        if (endpoint?.status !== 'active') throw new SandboxError(409, 'card.state_conflict', `The endpoint of delivery ${deliveryId} is disabled.`);
        if (row.status === 'pending') ctx.db.prepare('UPDATE webhook_deliveries SET next_attempt_at_ms = ?, updated_at = ? WHERE id = ?').run(ctx.nowMs(), ctx.nowIso(), deliveryId);
        else if (row.status === 'failed' || row.status === 'cancelled') {
          ctx.db.prepare(`UPDATE webhook_deliveries SET status = 'pending', attempts = 0, next_attempt_at_ms = ?, updated_at = ? WHERE id = ?`).run(ctx.nowMs(), ctx.nowIso(), deliveryId);
        } else if (row.status === 'succeeded') {
          // A deliberate duplicate (at-least-once delivery, 6.3): the receiver must drop it by event_id.
          ctx.db.prepare(`UPDATE webhook_deliveries SET status = 'pending', next_attempt_at_ms = ?, updated_at = ? WHERE id = ?`).run(ctx.nowMs(), ctx.nowIso(), deliveryId);
        }
      });
      await worker.runDue();
      return worker.get(deliveryId);
    },
    nextDueMs() {
      if (!ctx.db.open) return null;
      if (ctx.db.prepare('SELECT 1 FROM secrets_event_jobs LIMIT 1').get() !== undefined) return ctx.nowMs();
      const row = ctx.db.prepare<[], { due: number | null }>(`SELECT MIN(next_attempt_at_ms) AS due FROM webhook_deliveries WHERE status = 'pending'`).get();
      return row?.due ?? null;
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
