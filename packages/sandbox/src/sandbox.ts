import { randomInt } from 'node:crypto';
import { createAuthService, WORKSPACE_COLUMNS, type AuthService } from './auth.js';
import { createCardsService, type CardsService } from './cards.js';
import { createCatalogueService, setIssueFeeMode, type CatalogueService, type IssueFeeMode, type ProductSettings } from './catalogue.js';
import { createSystemClock, type Clock } from './clock.js';
import { createSharedClock } from './shared-clock.js';
import { createContext, type Context, type ResolvedOptions } from './context.js';
import { openStore, type Store } from './store/index.js';
import { migrations } from './migrations.js';
import { SandboxError } from './errors.js';
import { createEventsService, type EventsService } from './events.js';
import { auditLedger, createLedgerService, createWalletService, type LedgerService, type WalletService } from './ledger.js';
import { checkFailureReason, createOrdersService, finishClose, loadCard, NEXT_ISSUE, nextDueMs, resolveOrder, runDue, type AdminAction, type OrdersService } from './orders.js';
import {
  createDeliveryWorker,
  DEFAULT_DELIVERY_TIMEOUT_MS,
  DEFAULT_MAX_ATTEMPTS,
  DEFAULT_MAX_IN_FLIGHT,
  DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT,
  DEFAULT_RETRY_SCHEDULE_MS,
  httpTransport,
  type DeliveriesService,
  type DeliveryWorker,
  type WebhookTransport,
} from './delivery.js';
import { createRiskService, type RiskService } from './risk.js';
import { createSecretsService, type SecretsService } from './secrets.js';
import { createSimulateService, type SimulateService } from './transactions.js';
import { createWebhooksService, type WebhooksService } from './webhooks.js';
import { ABILITIES, type Order, type OrderFailureReason, type SandboxEvent, type Workspace } from './types.js';
import { createWalletAdmin, type WalletAdmin } from './wallet-admin.js';
import { createWorkspaceAdmin, type WorkspaceAdmin } from './workspaces.js';

/** Options of `createSandbox`. */
export interface SandboxOptions {
  /** SQLite file path, or `':memory:'` (default). A file keeps all state across restarts. */
  db?: string;
  /** Time source; default real time (with an `advance` offset). */
  clock?: Clock;
  /**
   * Whether the sandbox arms real timers to run due work by itself. Default: true with the
   * default clock, false with an injected clock (then drive it with `advance` / `runDue`).
   */
  autoRun?: boolean;
  /** Delay of each order step (pending -> processing -> outcome); default 50 ms, 0 allowed. */
  orderLatencyMs?: number;
  /** Delay from a close order's completion to close stage 2; default 1000 ms; `null` = only `admin.finishClose`. */
  closeDelayMs?: number | null;
  /** Randomness for fake card data (PAN digits, CVV); default crypto. Token secrets always use the OS CSPRNG. */
  random?: () => number;
  /** Per-minute ceilings: a token without its own limit (default 120) and one IP (default 600); 0 = no ceiling. */
  rateLimits?: { tokenPerMinute?: number; ipPerMinute?: number };
  /** Receives errors of background work and of `onEvent` listeners; default `console.error`. */
  onError?: (error: unknown) => void;
  /** Waits before each webhook redelivery, on the sandbox clock; default D19's 10 s, 30 s, 2 min, 10 min, 1 h, 3 h, 6 h. */
  webhookRetryScheduleMs?: readonly number[];
  /** Failed attempts of one delivery that disable its endpoint; default 8 (D19). */
  webhookMaxAttempts?: number;
  /** Real-time limit of one delivery attempt; default 10000 ms. The attempt's slot is freed at that limit. */
  webhookTimeoutMs?: number;
  /** Attempts of one endpoint in flight at once; default 4. A hanging receiver holds at most these. */
  webhookMaxInFlightPerEndpoint?: number;
  /** Attempts in flight at once over all endpoints; default 64. */
  webhookMaxInFlight?: number;
  /** Sends deliveries; default `httpTransport` (node:http/https, one connection per attempt). */
  webhookTransport?: WebhookTransport;
  /** Age after which a zero-amount probe's bill shows `expired`; default 7 days. */
  probeExpiryMs?: number;
  /**
   * The envelope of delivered `card.issued.secrets` bodies (D13): `full` (default) as every event, or `example`, the
   * contract's example of that event: `event`, `workspace_id` and `data` only, no `event_id` nor `occurred_at`, to
   * test a receiver against a service shaped like the contract.
   */
  cardSecretsEnvelope?: 'full' | 'example';
}

/** Sandbox controls beyond the contract: workspaces, tokens, money, forced outcomes. */
export interface SandboxAdmin extends WorkspaceAdmin, WalletAdmin {
  /**
   * Makes the next order of a card (or, with `'next-issue'`, the next issue order anywhere in
   * the sandbox) fail with `reason`. The failure binds to the order when it is accepted. A transient reason
   * (D42) fails `attempts` supplier attempts (default: the whole retry budget, so the order ends awaiting the
   * platform); the order retries on the sandbox clock meanwhile.
   */
  failNextOrder(target: string, reason: OrderFailureReason, attempts?: number): void;
  /** The admin queue on an order `awaiting_platform` (D42): `retry` or `refund_close`. */
  resolveOrder(workspaceId: number, uuid: string, action: AdminAction): Order;
  /** Close stage 2 now, without waiting for `closeDelayMs` (see `finishClose` in orders.ts). */
  finishClose(cardUuid: string): void;
  /** How a card product charges its issue fee from now on (D21; see `setIssueFeeMode` in catalogue.ts). */
  setIssueFeeMode(productId: number, mode: IssueFeeMode): ProductSettings;
  /** Double-entry invariant check; returns problems, empty when consistent. */
  audit(): string[];
}

/** What `seedDefaultWorkspace` returns; `token` is the only copy of the token value. */
export interface SeededWorkspace {
  workspace: Workspace;
  token: string;
  tokenId: number;
}

/** A running sandbox. Every service is synchronous (the storage seam is, see store/store.ts); every write is one transaction. */
export interface Sandbox {
  readonly auth: AuthService;
  readonly admin: SandboxAdmin;
  readonly catalogue: CatalogueService;
  readonly cards: CardsService;
  readonly orders: OrdersService;
  readonly wallet: WalletService;
  readonly ledger: LedgerService;
  readonly events: EventsService;
  readonly secrets: SecretsService;
  /** Webhook endpoints and the RSA public key (developer settings; control API, not public API). */
  readonly webhooks: WebhooksService;
  /** Webhook deliveries: inspection and the asynchronous runner. */
  readonly deliveries: DeliveriesService;
  /** Simulated card network events: authorizations, captures, reversals, refunds, declines, chargebacks. */
  readonly simulate: SimulateService;
  /** Unilateral freezes and risk penalties. */
  readonly risk: RiskService;
  readonly clock: Clock;
  /** The raw database, for inspection by tests and tools; writing to it bypasses every invariant. */
  readonly db: Store;
  /**
   * Moves the clock forward by `ms`, running every piece of work that falls due on the way at
   * its due time (so a close stage 2 scheduled after a completion inside the span also runs).
   * Needs a clock with `advance`.
   */
  advance(ms: number): void;
  /**
   * Like `advance`, and also runs the asynchronous work (webhook deliveries, `card.issued.secrets`
   * encryption) at each due time on the way, awaiting every attempt. The way to drive
   * deliveries with a manual clock.
   */
  advanceAsync(ms: number): Promise<void>;
  /** Runs the synchronous work (orders, close stage 2) due at the current clock time; returns the number of steps. Deliveries: `deliveries.runDue()`. */
  runDue(): number;
  /**
   * Runs the synchronous work due now and starts the due deliveries in the background, without waiting for
   * them (whatever `autoRun` says): what the control API does after a resend.
   */
  startDue(): void;
  /**
   * The control API's advance: like `advance`, then `startDue`, returning without waiting for any delivery.
   * Deliveries that fell due inside the span are attempted in the background as if at their due times, so their
   * retries that also fall inside the span follow at once (as `advanceAsync` would have sent them, waiting);
   * `deliveries.list` shows the progress.
   */
  advanceInBackground(ms: number): void;
  /** Creates (or, on a reopened file, finds) the `default` workspace: USD, 10000.00 deposited, and mints a token with every ability. */
  seedDefaultWorkspace(): SeededWorkspace;
  /** Stops the timers and closes the database. */
  close(): void;
}

/**
 * A slice of the due work (order steps, closes) runs at most this many steps, plus {@link STEPS_PER_WRITE} for each
 * write the API committed since the previous slice, before it lets the event loop serve requests again.
 */
const STEPS_PER_SLICE = 32;

/**
 * Steps a slice may add per foreground write since the previous slice: an order takes two steps (pending ->
 * processing -> outcome). The work a burst of requests schedules is then paid for at the rate it arrives. With a
 * fixed slice, 100 connections issuing cards got a 32-step slice per turn of the event loop against up to 100 new
 * orders, and the backlog of due orders grew for as long as the load lasted (`npm run bench -- sandbox`: 17,471 of
 * the 18,558 orders of the 5 s POST case still open at its end); it now stays at what the last turns brought (334
 * of 13,477).
 */
const STEPS_PER_WRITE = 2;

/**
 * The most steps one slice runs, however many writes came in (a burst of writes that scheduled nothing, deposits
 * for example, must not let one slice hold the event loop for seconds).
 */
const MAX_STEPS_PER_SLICE = 1024;

/**
 * How often a replica on a shared database (PostgreSQL) looks for due work it did not schedule itself: the bound on
 * how long work of a replica that died waits for another one (orders, closes; deliveries after their lease too).
 */
const SHARED_POLL_MS = 500;

/** Default initial funding of the seeded workspace. */
export const DEFAULT_SEED_BALANCE = '10000.00';

/**
 * Opens a sandbox. Pending work found in a file database (orders mid-way, closes waiting for
 * stage 2) is resumed: with `autoRun` a timer is armed at once, otherwise the next
 * `runDue` / `advance` picks it up.
 *
 * @example
 * const sandbox = createSandbox({ clock: createManualClock(), orderLatencyMs: 0 });
 * const { workspace } = sandbox.seedDefaultWorkspace();
 * const order = sandbox.cards.create(workspace.id, { card_product_id: 1, initial_topup_amount: '100.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' }, 'key-1');
 * sandbox.runDue();
 * sandbox.orders.get(workspace.id, order.uuid).status; // 'completed'
 */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  const autoRun = options.autoRun ?? options.clock === undefined;
  const onError = options.onError ?? ((error: unknown) => console.error('[sandbox]', error));
  const resolved: ResolvedOptions = {
    orderLatencyMs: nonNegative('orderLatencyMs', options.orderLatencyMs ?? 50),
    closeDelayMs: options.closeDelayMs === null ? null : nonNegative('closeDelayMs', options.closeDelayMs ?? 1000),
    defaultTokenRateLimitPerMinute: nonNegativeInt('rateLimits.tokenPerMinute', options.rateLimits?.tokenPerMinute ?? 120),
    ipRateLimitPerMinute: nonNegativeInt('rateLimits.ipPerMinute', options.rateLimits?.ipPerMinute ?? 600),
    random: options.random ?? (() => randomInt(0, 2 ** 32) / 2 ** 32),
    webhookRetryScheduleMs: retrySchedule(options.webhookRetryScheduleMs ?? DEFAULT_RETRY_SCHEDULE_MS),
    webhookMaxAttempts: positiveInt('webhookMaxAttempts', options.webhookMaxAttempts ?? DEFAULT_MAX_ATTEMPTS),
    webhookTimeoutMs: nonNegative('webhookTimeoutMs', options.webhookTimeoutMs ?? DEFAULT_DELIVERY_TIMEOUT_MS),
    probeExpiryMs: nonNegative('probeExpiryMs', options.probeExpiryMs ?? 7 * 24 * 3_600_000),
    cardSecretsEnvelope: oneOf('cardSecretsEnvelope', options.cardSecretsEnvelope ?? 'full', ['full', 'example'] as const),
  };
  const tuning = {
    autoRun,
    maxInFlightPerEndpoint: positiveInt('webhookMaxInFlightPerEndpoint', options.webhookMaxInFlightPerEndpoint ?? DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT),
    maxInFlight: positiveInt('webhookMaxInFlight', options.webhookMaxInFlight ?? DEFAULT_MAX_IN_FLIGHT),
  };
  const db = openStore(options.db ?? ':memory:', migrations);
  // The default clock's offset (how far `advance` moved it) lives in the database, so that a restart on the same
  // file resumes at the sandbox time it left, and what fell due meanwhile runs at once. An injected clock is the
  // caller's: nothing is stored for it.
  const clock: Clock =
    options.clock ??
    (db.shared
      ? createSharedClock(db, { read: () => readClockOffset(db), write: (offsetMs) => writeClockOffset(db, offsetMs) })
      : createSystemClock({ offsetMs: readClockOffset(db), onAdvance: (offsetMs) => writeClockOffset(db, offsetMs) }));
  const listeners = new Set<(event: SandboxEvent) => void>();
  // Assigned right after the context: the worker's own start-up write already re-arms the timer.
  let worker: DeliveryWorker | undefined;
  let timer: NodeJS.Timeout | undefined;
  let armedFor: number | null = null;
  let closed = false;

  const publish = (events: SandboxEvent[]): void => {
    for (const event of events) {
      for (const listener of [...listeners]) {
        try {
          listener(event);
        } catch (error) {
          onError(error);
        }
      }
    }
  };

  /** Earliest due time of the delivery worker's work it can start (a saturated endpoint's end of attempt re-pumps). */
  const asyncDueMs = (): number | null => (worker === undefined ? null : worker.nextDueMs());

  /** Starts the delivery worker's due work in the background (after the current call stack: never inside a caller's write). */
  const kickWorker = (): void => {
    if (worker !== undefined && !closed && autoRun) worker.kick();
  };

  /** Keeps one real timer pointed at the earliest due work (only with autoRun). */
  const arm = (): void => {
    if (!autoRun || closed) return;
    // Replicas on one database: another one may have scheduled work (or died holding deliveries), so look again soon.
    const due = earliest(earliest(nextDueMs(ctx), asyncDueMs()), db.shared ? ctx.nowMs() + SHARED_POLL_MS : null);
    if (due === armedFor && timer !== undefined) return;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    armedFor = due;
    if (due === null) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        armedFor = null;
        // A bounded slice of the due work, then back to the event loop (requests waiting meanwhile are served),
        // re-armed at once if more is due. One re-arm per slice, not per step.
        batching = true;
        const budget = Math.min(MAX_STEPS_PER_SLICE, STEPS_PER_SLICE + STEPS_PER_WRITE * writesSinceSlice);
        writesSinceSlice = 0;
        try {
          runDue(ctx, budget);
        } catch (error) {
          onError(error);
        } finally {
          batching = false;
        }
        kickWorker();
        arm();
      },
      Math.min(2 ** 31 - 1, Math.max(0, due - ctx.nowMs())),
    );
    timer.unref();
  };

  let batching = false;
  // Writes committed outside the scheduler's slices (requests, control calls) since the last slice.
  let writesSinceSlice = 0;
  // After a commit the timer is re-armed once per turn of the event loop, not once per commit: re-arming reads the
  // earliest due times (two queries), and a burst of writes (a hundred clients issuing cards) commits many times
  // in one turn. Nothing due can be missed meanwhile: the timer only ever fires in a later turn.
  let rearmQueued = false;
  const rearmSoon = (): void => {
    if (rearmQueued || closed || !autoRun) return;
    rearmQueued = true;
    setImmediate(() => {
      rearmQueued = false;
      arm();
      kickWorker();
    }).unref();
  };
  const ctx: Context = createContext(db, clock, resolved, publish, () => {
    if (batching) return;
    writesSinceSlice++;
    rearmSoon();
  });

  const deliveryWorker = createDeliveryWorker(ctx, options.webhookTransport ?? httpTransport, onError, tuning);
  worker = deliveryWorker;
  const workspaceAdmin = createWorkspaceAdmin(ctx);
  const admin: SandboxAdmin = {
    ...workspaceAdmin,
    ...createWalletAdmin(ctx),
    failNextOrder(target, reason, attempts) {
      const failure = checkFailureReason(reason);
      if (attempts !== undefined && (!Number.isSafeInteger(attempts) || attempts < 1 || attempts > 10)) throw new SandboxError(422, 'validation.failed', 'attempts is an integer from 1 to 10.', { attempts: ['must be an integer from 1 to 10'] });
      ctx.write(() => {
        const key = target === NEXT_ISSUE ? NEXT_ISSUE : String(target).toLowerCase();
        if (key !== NEXT_ISSUE && loadCard(ctx, key) === undefined) throw new SandboxError(404, 'card.not_found', `No card ${String(target)}.`);
        ctx.db
          .prepare('INSERT INTO forced_failures (target, failure_reason, attempts) VALUES (?, ?, ?) ON CONFLICT (target) DO UPDATE SET failure_reason = excluded.failure_reason, attempts = excluded.attempts')
          .run(key, failure, attempts ?? null);
      });
    },
    resolveOrder: (workspaceId, uuid, action) => resolveOrder(ctx, workspaceId, uuid, action),
    finishClose: (cardUuid) => finishClose(ctx, String(cardUuid).toLowerCase()),
    setIssueFeeMode: (productId, mode) => setIssueFeeMode(ctx, productId, mode),
    audit: () => auditLedger(ctx),
  };

  /**
   * Moves the clock by `ms`, running the synchronous work at each due time on the way. With `noteJumps`, the
   * delivery worker hears of each move (see `DeliveryWorker.noteJump`).
   */
  const advanceBy = (ms: number, noteJumps: boolean): void => {
    const move = clock.advance?.bind(clock);
    if (move === undefined) throw new Error('advance needs a clock with an advance(ms) method');
    nonNegative('ms', ms);
    const target = ctx.nowMs() + ms;
    const jump = (by: number): void => {
      const from = ctx.nowMs();
      move(by);
      if (noteJumps) deliveryWorker.noteJump(from, ctx.nowMs());
    };
    for (let due = nextDueMs(ctx); due !== null && due <= target; due = nextDueMs(ctx)) {
      const now = ctx.nowMs();
      if (due > now) jump(due - now);
      runDue(ctx);
    }
    const now = ctx.nowMs();
    if (target > now) jump(target - now);
    runDue(ctx);
    arm();
    kickWorker();
  };

  const sandbox: Sandbox = {
    auth: createAuthService(ctx),
    admin,
    catalogue: createCatalogueService(ctx),
    cards: createCardsService(ctx),
    orders: createOrdersService(ctx),
    wallet: createWalletService(ctx),
    ledger: createLedgerService(ctx),
    events: createEventsService(ctx, listeners),
    secrets: createSecretsService(ctx),
    webhooks: createWebhooksService(ctx),
    deliveries: deliveryWorker,
    simulate: createSimulateService(ctx),
    risk: createRiskService(ctx),
    clock,
    db,
    advance: (ms) => advanceBy(ms, false),
    advanceInBackground(ms) {
      advanceBy(ms, true);
      sandbox.startDue();
    },
    async advanceAsync(ms) {
      const move = clock.advance?.bind(clock);
      if (move === undefined) throw new Error('advanceAsync needs a clock with an advance(ms) method');
      nonNegative('ms', ms);
      const target = ctx.nowMs() + ms;
      // Bounded: every round either moves the clock or ends work (a delivery runs out of attempts).
      for (let round = 0; round < 100_000; round++) {
        const due = earliest(nextDueMs(ctx), deliveryWorker.nextDueMs());
        if (due === null || due > target) break;
        const now = ctx.nowMs();
        if (due > now) move(due - now);
        runDue(ctx);
        await deliveryWorker.runDue();
      }
      const now = ctx.nowMs();
      if (target > now) move(target - now);
      runDue(ctx);
      await deliveryWorker.runDue();
      arm();
    },
    runDue: () => runDue(ctx),
    startDue() {
      runDue(ctx);
      void deliveryWorker.runDue().catch(onError);
      arm();
    },
    seedDefaultWorkspace() {
      const existing = db.prepare<[], { id: number }>(`SELECT id FROM workspaces WHERE slug = 'default'`).get();
      const workspace = existing === undefined ? workspaceAdmin.createWorkspace({ name: 'Default workspace', slug: 'default', baseCurrency: 'USD' }) : undefined;
      const id = workspace?.id ?? existing!.id;
      if (workspace !== undefined) workspaceAdmin.deposit(id, { amount: DEFAULT_SEED_BALANCE, description: 'Sandbox seed funding' });
      const created = workspaceAdmin.createToken(id, { name: 'Sandbox default token', abilities: [...ABILITIES] });
      const ws = db.prepare<[number], Workspace>(`SELECT ${WORKSPACE_COLUMNS} FROM workspaces WHERE id = ?`).get(id)!;
      return { workspace: ws, token: created.token, tokenId: created.id };
    },
    close() {
      closed = true;
      deliveryWorker.close();
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
      if (db.open) db.close();
    },
  };

  arm();
  return sandbox;
}

function earliest(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : Math.min(a, b);
}

function nonNegativeInt(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be an integer >= 0 (0 = none), got ${value}`);
  return value;
}

const CLOCK_OFFSET_KEY = 'clock_offset_ms';

function readClockOffset(db: Store): number {
  const row = db.prepare<[string], { value: string }>('SELECT value FROM sandbox_state WHERE key = ?').get(CLOCK_OFFSET_KEY);
  const offset = row === undefined ? 0 : Number(row.value);
  return Number.isFinite(offset) && offset > 0 ? offset : 0;
}

function writeClockOffset(db: Store, offsetMs: number): void {
  if (!db.open) return;
  db.prepare('INSERT INTO sandbox_state (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(CLOCK_OFFSET_KEY, String(offsetMs));
}

function oneOf<T extends string>(name: string, value: T, allowed: readonly T[]): T {
  if (!allowed.includes(value)) throw new RangeError(`${name} must be one of ${allowed.join(', ')}, got ${String(value)}`);
  return value;
}

function positiveInt(name: string, value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) throw new RangeError(`${name} must be an integer >= 1, got ${value}`);
  return value;
}

function retrySchedule(schedule: readonly number[]): readonly number[] {
  if (!Array.isArray(schedule) || schedule.length === 0) throw new RangeError('webhookRetryScheduleMs must be a non-empty array of delays');
  return Object.freeze(schedule.map((ms, i) => nonNegative(`webhookRetryScheduleMs[${i}]`, ms)));
}

function nonNegative(name: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) throw new RangeError(`${name} must be a finite number >= 0, got ${value}`);
  return value;
}
