/**
 * The checks catalogue: every check verify can report, with a stable id, what it asserts and what it needs
 * (read-only, `--allow-writes`, a webhook listener, a private key), and the recorder the runs write into.
 *
 * A check collects observations. One failed observation fails the check; a check with no observation is
 * skipped, with the reason its requirement gives or the reason the run recorded. Evidence is request ids,
 * event ids, idempotency keys: never a token, never a card secret.
 */
import type { StopReason } from './context.js';

export type CheckStatus = 'pass' | 'fail' | 'skipped';

/** What a check needs before it can run. */
export type CheckNeed = 'read' | 'writes' | 'webhooks' | 'writes+webhooks' | 'private-key' | 'read-only-token' | 'other-workspace-token';

export interface CheckDefinition {
  id: string;
  title: string;
  needs: CheckNeed;
}

/** Checks whose ids are fixed. Per-list pagination checks (`list.<operationId>`) are added from the spec. */
export const FIXED_CHECKS: readonly CheckDefinition[] = [
  // Every exchange, against the spec.
  { id: 'http.status-declared', title: 'every answer has a status the spec declares for its operation', needs: 'read' },
  { id: 'http.body-schema', title: 'every answer body validates strictly against the schema declared for its status', needs: 'read' },
  { id: 'http.request-id', title: 'every answer carries X-Request-Id, equal to the error body\'s request_id (D2)', needs: 'read' },
  { id: 'http.error-envelope', title: 'every error answer is the D2 envelope { error: { code, message, request_id } } as JSON', needs: 'read' },
  { id: 'http.rate-limit-headers', title: 'the rate-limit headers the spec declares (D5) are present, integers, remaining <= limit', needs: 'read' },
  // Authentication and documented refusals.
  { id: 'auth.ping', title: 'GET the token check with the token answers 200 with the token\'s workspace', needs: 'read' },
  { id: 'auth.no-token', title: 'a request without a token is refused 401 api.unauthenticated, on every route', needs: 'read' },
  { id: 'auth.bad-token', title: 'a request with an unknown token is refused 401 api.unauthenticated, on every route', needs: 'read' },
  { id: 'refusal.card-not-found', title: 'an unknown card uuid is refused 404 card.not_found', needs: 'read' },
  { id: 'refusal.order-not-found', title: 'an unknown order uuid is refused 404 order.not_found', needs: 'read' },
  { id: 'refusal.per-page-zero', title: 'a per_page below the declared minimum is refused 422 validation.failed on every list', needs: 'read' },
  { id: 'refusal.bad-status', title: 'a status filter outside its enum is refused 422 validation.failed', needs: 'read' },
  { id: 'refusal.unknown-route', title: 'an unknown route is refused 404 api.not_found (D6)', needs: 'read' },
  // Generated inputs (seeded: --seed replays them).
  { id: 'input.valid', title: 'generated valid requests of every operation are served, or refused for a documented business reason (never 5xx, 400, 401, 403)', needs: 'read' },
  { id: 'input.invalid', title: 'generated requests that break one constraint each (type, enum, pattern, length, bound, required, unknown property, malformed JSON, content type) are refused 422 validation.failed', needs: 'read' },
  { id: 'input.unknown-query', title: 'an unknown query parameter is ignored or refused 422 validation.failed, never a 5xx', needs: 'read' },
  { id: 'input.optional-omitted', title: 'every operation with its optional body and parameters left out is served (a freeze without a body, a list without a query)', needs: 'read' },
  { id: 'input.defaults', title: 'a list without page and per_page gives the declared defaults (per_page 50 on /orders and /transactions)', needs: 'read' },
  // Money, on every read.
  { id: 'money.available', title: 'available = balance - held_balance for every wallet, available_balance = card_balance - held_amount for every card, on every read', needs: 'read' },
  { id: 'money.ledger', title: 'ledger amounts are positive, every txn_group_id balances (debits = credits per currency), a card\'s account rows add up to its balance', needs: 'read' },
  // Reads.
  { id: 'read.card-matches-row', title: 'each listed card fetched by uuid equals its list row', needs: 'read' },
  { id: 'read.order-matches-row', title: 'each listed order fetched by uuid equals its list row', needs: 'read' },
  // The write flow.
  { id: 'write.issue', title: 'issuing a card with the smallest allowed amount answers 202 with an issue_card order holding amount + issue fee (D21)', needs: 'writes' },
  { id: 'write.issue-completes', title: 'the issue order, polled, completes and names the new card, which is active', needs: 'writes' },
  { id: 'write.idempotency-replay', title: 'the same idempotency key with the same body returns the same order', needs: 'writes' },
  { id: 'write.idempotency-conflict', title: 'the same idempotency key with another body is refused 409 idempotency.key_reused', needs: 'writes' },
  { id: 'write.topup', title: 'a top-up of the smallest allowed amount completes and credits the card', needs: 'writes' },
  { id: 'write.freeze', title: 'a freeze completes and the card is frozen', needs: 'writes' },
  { id: 'write.freeze-again', title: 'a second freeze is refused 409 card.state_conflict', needs: 'writes' },
  { id: 'write.unfreeze', title: 'an unfreeze completes and the card is active', needs: 'writes' },
  { id: 'write.close-stage-1', title: 'a close answers 202, its order completes and the card is pending_close (or closed)', needs: 'writes' },
  { id: 'write.close-stage-2', title: 'close stage 2: the card becomes closed', needs: 'writes' },
  // State and money the write flow implies.
  { id: 'state.created-readable', title: 'an accepted order is readable at once and first in its list; the issued card is readable and first in its list', needs: 'writes' },
  { id: 'state.idempotent-replays', title: 'replaying each write of the flow with its key and body returns the same order and moves no money', needs: 'writes' },
  { id: 'state.after-close', title: 'a closing or closed card refuses every write 409 card.state_conflict and is still served by its reads', needs: 'writes' },
  { id: 'money.order-hold', title: 'a pending order\'s hold shows in the wallet; a completed order took exactly held_amount from the wallet (fees per the product)', needs: 'writes' },
  { id: 'money.close-refund', title: 'close stage 2 returns the card balance to the wallet, and card.closed says so in refund_amount', needs: 'writes' },
  // Other tokens.
  { id: 'authz.read-only', title: 'a token without write abilities: every write refused 403 api.insufficient_ability, every read its abilities allow served', needs: 'read-only-token' },
  { id: 'isolation.other-workspace', title: 'another workspace\'s token reads nothing of this workspace (404) and its lists hold none of its resources', needs: 'other-workspace-token' },
  // Webhooks.
  { id: 'webhook.signature', title: 'every delivery verifies: X-Service-Signature HMAC over the raw body, timestamp within 300 s', needs: 'webhooks' },
  { id: 'webhook.schema', title: 'every verified delivery validates strictly against the schema of its event', needs: 'webhooks' },
  { id: 'webhook.event-id', title: 'one event_id per event: an event_id never names two different events, an event never carries two event_ids', needs: 'webhooks' },
  { id: 'webhook.redelivery-bytes', title: 'redeliveries of an event_id carry byte-identical bodies', needs: 'webhooks' },
  { id: 'webhook.order-completed', title: 'every order of the write flow is acknowledged by order.completed with its uuid, type and hold', needs: 'writes+webhooks' },
  { id: 'webhook.issue-carries-card', title: 'order.completed of the issue order carries the new card\'s uuid', needs: 'writes+webhooks' },
  { id: 'webhook.card-events', title: 'card.frozen (origin workspace) and card.unfrozen are pushed for the flow\'s card', needs: 'writes+webhooks' },
  { id: 'webhook.close-sequence', title: 'card.close_initiated, then the close order\'s order.completed, then card.closed', needs: 'writes+webhooks' },
  { id: 'webhook.card-secrets', title: 'card.issued.secrets decrypts with the private key to pan, cvv, expiry of the issued card (never printed)', needs: 'private-key' },
];

/** The id of the pagination check of one list operation. */
export const listCheckId = (operationId: string): string => `list.${operationId}`;

export interface Observation {
  ok: boolean;
  message: string;
  evidence: string[];
}

export interface CheckResult {
  id: string;
  title: string;
  status: CheckStatus;
  /** Why it failed (the failed observations) or why it was skipped. */
  details: string[];
  /** Request ids, event ids, idempotency keys that prove the result. */
  evidence: string[];
  /** Number of observations. */
  observations: number;
}

export interface VerifyReport {
  baseUrl: string;
  spec: string;
  startedAt: string;
  durationMs: number;
  /** HTTP requests made to the server (429 retries included). */
  requests: number;
  /** Seed of the generated inputs: `--seed` replays them. */
  seed: number;
  mode: { writes: boolean; webhooks: boolean; privateKey: boolean };
  /** Present when the run could not start or go on (the CLI exits 2): why, in one line. */
  stopped?: { reason: StopReason; message: string };
  checks: CheckResult[];
  summary: { total: number; passed: number; failed: number; skipped: number };
}

const MAX_EVIDENCE = 20;

/** Collects observations per check id, in catalogue order. */
export class CheckRecorder {
  readonly #definitions = new Map<string, CheckDefinition>();
  readonly #observations = new Map<string, Observation[]>();
  readonly #skips = new Map<string, string>();
  /** Checks that could not be judged because another check failed: id -> why, naming the cause. */
  readonly #blocked = new Map<string, string[]>();
  /** Where else a failed check's fault showed: cause id -> check ids. */
  readonly #alsoSeen = new Map<string, Set<string>>();

  constructor(definitions: readonly CheckDefinition[]) {
    for (const d of definitions) this.define(d);
  }

  define(definition: CheckDefinition): void {
    if (!this.#definitions.has(definition.id)) this.#definitions.set(definition.id, definition);
  }

  has(id: string): boolean {
    return this.#definitions.has(id);
  }

  #list(id: string): Observation[] {
    if (!this.#definitions.has(id)) throw new Error(`verify: unknown check ${id}`);
    let list = this.#observations.get(id);
    if (!list) this.#observations.set(id, (list = []));
    return list;
  }

  pass(id: string, message: string, evidence: string[] = []): void {
    this.#list(id).push({ ok: true, message, evidence });
  }

  fail(id: string, message: string, evidence: string[] = []): void {
    this.#list(id).push({ ok: false, message, evidence });
  }

  /** Records a pass when `problems` is empty, else one failure per problem. */
  expect(id: string, problems: string[], passMessage: string, evidence: string[] = []): boolean {
    if (problems.length === 0) this.pass(id, passMessage, evidence);
    else for (const p of problems) this.fail(id, p, evidence);
    return problems.length === 0;
  }

  /**
   * Records that `id` could not be judged because `cause` failed: a cascade, reported once under its cause. The check
   * is skipped (unless it fails on its own) with the reason naming the cause, and the cause lists it as where else
   * its fault showed.
   */
  blocked(id: string, cause: string, message: string): void {
    this.#list(id);
    const list = this.#blocked.get(id) ?? this.#blocked.set(id, []).get(id)!;
    if (!list.includes(message)) list.push(message);
    this.alsoSeen(cause, id);
  }

  /** Notes that the fault of `cause` also showed in check `where` (which then does not count it again). */
  alsoSeen(cause: string, where: string): void {
    if (cause === where) return;
    const set = this.#alsoSeen.get(cause) ?? this.#alsoSeen.set(cause, new Set()).get(cause)!;
    set.add(where);
  }

  /** Whether a check has failed so far. */
  failed(id: string): boolean {
    return (this.#observations.get(id) ?? []).some((o) => !o.ok);
  }

  /** Marks a check skipped (unless it has observations) with the reason. */
  skip(id: string, reason: string): void {
    if (!this.#skips.has(id)) this.#skips.set(id, reason);
  }

  results(): CheckResult[] {
    return [...this.#definitions.values()].map((d) => {
      const obs = this.#observations.get(d.id) ?? [];
      const failed = obs.filter((o) => !o.ok);
      const evidence = [...new Set((failed.length > 0 ? failed : obs).flatMap((o) => o.evidence))];
      const blocked = this.#blocked.get(d.id);
      if (failed.length === 0 && blocked) return { id: d.id, title: d.title, status: 'skipped', details: blocked.map((b) => `not judged: ${b}`), evidence: [], observations: obs.length };
      const seen = failed.length > 0 ? [...(this.#alsoSeen.get(d.id) ?? [])] : [];
      if (seen.length > 0) failed.push({ ok: false, message: `the same fault also showed in ${seen.join(', ')} (not counted there)`, evidence: [] });
      if (obs.length === 0) return { id: d.id, title: d.title, status: 'skipped', details: [this.#skips.get(d.id) ?? 'nothing to check in this run'], evidence: [], observations: 0 };
      return {
        id: d.id,
        title: d.title,
        status: failed.length > 0 ? 'fail' : 'pass',
        details: failed.length > 0 ? [...new Set(failed.map((o) => o.message))] : [],
        evidence: evidence.slice(0, MAX_EVIDENCE),
        observations: obs.length,
      };
    });
  }
}
