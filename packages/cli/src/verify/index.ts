/**
 * `gen-card-api verify`: points the contract at a live server. Read-only by default; `allowWrites` adds the
 * typical flow; `webhook` adds a receiver whose deliveries are judged. Returns the report and never throws: a
 * server that departs from the contract fails checks; a run that cannot start or go on (the spec does not load,
 * the receiver cannot listen, the server does not answer, answers too much, too deep or too slowly, or the
 * deadline passes) returns the report so far with `stopped` naming the cause.
 */
import { SpecError, SpecErrors } from '../../../../generators/model/errors.js';
import { CheckRecorder, FIXED_CHECKS, listCheckId, type VerifyReport } from './checks.js';
import { VerifyStopped, type VerifyContext } from './context.js';
import { Probe } from './http.js';
import { ResourceRegistry, runIsolationChecks, runReadOnlyChecks } from './authz.js';
import { runInputChecks } from './inputs.js';
import { MoneyObserver } from './money.js';
import { runAuthAndRefusals, runReadChecks } from './read.js';
import { VerifySpec } from './spec.js';
import { runWebhookChecks, WebhookReceiver } from './webhooks.js';
import { runWriteFlow, type FlowResult } from './writes.js';

export { formatReport, redact, type ReportFormat } from './report.js';
export { SchemaValidator, VerifySpec } from './spec.js';
export { FIXED_CHECKS, listCheckId, type CheckResult, type CheckStatus, type VerifyReport } from './checks.js';
export { WebhookReceiver } from './webhooks.js';
export { Probe, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_REQUEST_TIMEOUT_MS } from './http.js';
export { VerifyStopped, type StopReason } from './context.js';
export { CheckRecorder } from './checks.js';

export interface VerifyOptions {
  baseUrl: string;
  token: string;
  /** Spec file. */
  spec: string;
  allowWrites?: boolean;
  /** Start a webhook receiver for the run. */
  webhook?: { host: string; port: number; secret: string; provokeRedelivery?: boolean };
  /** PEM of the RSA private key that decrypts `card.issued.secrets`. */
  privateKeyPem?: string;
  perPage?: number;
  maxPages?: number;
  maxItems?: number;
  pollIntervalMs?: number;
  orderTimeoutMs?: number;
  closeTimeoutMs?: number;
  webhookWaitMs?: number;
  /** Time for one exchange with the server, to the last byte of the body. Default 30 s. */
  requestTimeoutMs?: number;
  /** Largest response body read (and webhook delivery kept). Default 8 MiB. */
  maxResponseBytes?: number;
  /** Waits on Retry-After: one at most (s), all together (ms). Defaults 60 s and 120 s. */
  maxRetryAfterSec?: number;
  maxRateLimitWaitMs?: number;
  /** The whole run, in ms. Default: 600 s plus the order, close and webhook waits. */
  deadlineMs?: number;
  /** Ends the run early (its report then says `aborted`, or the abort reason when that is a `VerifyStopped`). */
  signal?: AbortSignal;
  log?: (line: string) => void;
  /** Called once the receiver listens, with its port (tests register the endpoint then). */
  onListening?: (port: number) => void | Promise<void>;
  fetch?: typeof fetch;
  /** Seed of the generated inputs; a run with the same seed (and server state) sends the same requests. Default: random. */
  seed?: number;
  /** Generated requests per property (valid, invalid, unknown query) and operation. Default 20. */
  maxExamples?: number;
  /** Time for all generated requests, shrinking included, in ms. Default 60,000. */
  inputBudgetMs?: number;
  /** A token of the same workspace without write abilities (`authz.read-only`). */
  readOnlyToken?: string;
  /** A token of another workspace (`isolation.other-workspace`). */
  otherWorkspaceToken?: string;
}

/** The run's deadline when none is given: ten minutes for requests, plus every wait the options allow. */
export function defaultDeadlineMs(options: Pick<VerifyOptions, 'orderTimeoutMs' | 'closeTimeoutMs' | 'webhookWaitMs'>): number {
  return 600_000 + (options.orderTimeoutMs ?? 60_000) + (options.closeTimeoutMs ?? 120_000) + (options.webhookWaitMs ?? 60_000);
}

/** What stopped a run, from what it threw. */
function stopOf(error: unknown): VerifyStopped {
  if (error instanceof VerifyStopped) return error;
  if (error instanceof SpecErrors || error instanceof SpecError) {
    const errors = error instanceof SpecErrors ? error.errors : [error];
    return new VerifyStopped('spec', `the spec cannot be loaded: ${errors.map((e) => e.message).join('; ')}`);
  }
  return new VerifyStopped('error', `verify could not go on: ${error instanceof Error ? error.message : String(error)}`);
}

export async function runVerify(options: VerifyOptions): Promise<VerifyReport> {
  const started = Date.now();
  const checks = new CheckRecorder(FIXED_CHECKS);
  const log = options.log ?? (() => undefined);
  const deadlineMs = options.deadlineMs ?? defaultDeadlineMs(options);
  const run = new AbortController();
  const deadline = setTimeout(() => run.abort(new VerifyStopped('deadline', `the run went past its ${deadlineMs / 1000} s deadline (--deadline)`)), deadlineMs);
  const onAbort = () => run.abort(options.signal!.reason instanceof VerifyStopped ? options.signal!.reason : new VerifyStopped('aborted', 'the run was aborted'));
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  let probe: Probe | null = null;
  let receiver: WebhookReceiver | null = null;
  let stopped: VerifyStopped | null = null;

  // What the options rule out is known before anything runs.
  if (!options.allowWrites) for (const d of FIXED_CHECKS.filter((c) => c.needs === 'writes')) checks.skip(d.id, 'needs --allow-writes (verify is read-only without it)');
  if (!options.webhook) for (const d of FIXED_CHECKS.filter((c) => c.needs !== 'read' && c.needs !== 'writes')) checks.skip(d.id, 'needs --webhook-listen and --webhook-secret');
  if (!options.allowWrites) for (const d of FIXED_CHECKS.filter((c) => c.needs === 'writes+webhooks' || c.needs === 'private-key')) checks.skip(d.id, 'needs --allow-writes');
  if (!options.readOnlyToken) checks.skip('authz.read-only', 'needs --read-only-token (a token of this workspace without write abilities, from the settings screen)');
  if (!options.otherWorkspaceToken) checks.skip('isolation.other-workspace', 'needs --other-workspace-token (a token of another workspace, from its settings screen)');
  const seed = options.seed ?? (Math.random() * 2 ** 31) | 0;
  try {
    const spec = await VerifySpec.load(options.spec);
    for (const op of spec.listOperations()) checks.define({ id: listCheckId(op.operationId), title: `${op.method} ${op.route}: every page's meta and links are consistent, the pages hold meta.total distinct items`, needs: 'read' });
    probe = new Probe({
      baseUrl: options.baseUrl,
      token: options.token,
      spec,
      checks,
      signal: run.signal,
      ...(options.fetch ? { fetch: options.fetch } : {}),
      ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      ...(options.maxResponseBytes ? { maxResponseBytes: options.maxResponseBytes } : {}),
      ...(options.maxRetryAfterSec ? { maxRetryAfterSec: options.maxRetryAfterSec } : {}),
      ...(options.maxRateLimitWaitMs ? { maxRateLimitWaitMs: options.maxRateLimitWaitMs } : {}),
    });
    const ctx: VerifyContext = { spec, probe, checks, perPage: options.perPage ?? 5, maxPages: options.maxPages ?? 20, maxItems: options.maxItems ?? 50, log, signal: run.signal };
    const money = new MoneyObserver(ctx);
    const registry = new ResourceRegistry(ctx);
    probe.observers.push((x) => money.observe(x), (x) => registry.observe(x));

    if (options.webhook) {
      receiver = new WebhookReceiver({ ...options.webhook, ...(options.maxResponseBytes ? { maxBodyBytes: options.maxResponseBytes } : {}), ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}) });
      let port: number;
      try {
        port = await receiver.listen();
      } catch (error) {
        throw new VerifyStopped('receiver', `the webhook receiver cannot listen on ${options.webhook.host}:${options.webhook.port}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
      }
      log(`verify: webhook receiver on ${options.webhook.host}:${port}`);
      await options.onListening?.(port);
    }
    log('verify: token, refusals');
    const own = await runAuthAndRefusals(ctx);
    let flow: FlowResult | null = null;
    if (options.allowWrites) {
      log('verify: write flow (issue, idempotency, top-up, freeze, unfreeze, close)');
      const orderTimeoutMs = options.orderTimeoutMs ?? 60_000;
      const listening = receiver;
      flow = await runWriteFlow(ctx, {
        pollIntervalMs: options.pollIntervalMs ?? 2000,
        orderTimeoutMs,
        closeTimeoutMs: options.closeTimeoutMs ?? 120_000,
        cardFunded: (uuid: string) => money.checkCardAccount(uuid),
        ...(listening ? { completedCard: (uuid: string) => listening.completedCard(uuid, orderTimeoutMs, run.signal), webhookCause: () => (listening.deliveries.some((d) => !d.verified) ? 'webhook.signature' : null) } : {}),
      });
    }
    log('verify: lists, pagination, reads by uuid');
    await runReadChecks(ctx);
    if (receiver) await runWebhookChecks(ctx, receiver, flow, { waitMs: options.webhookWaitMs ?? 60_000, privateKeyPem: options.privateKeyPem });
    log(`verify: generated inputs (seed ${seed})`);
    await runInputChecks(ctx, { seed, maxExamples: options.maxExamples ?? 20, budgetMs: options.inputBudgetMs ?? 60_000, allowWrites: options.allowWrites === true, closedCard: flow?.closeOrder && flow.cardUuid ? flow.cardUuid : null });
    log('verify: money invariants over the whole ledger');
    await money.finish();
    if (options.readOnlyToken) {
      log('verify: the read-only token');
      await runReadOnlyChecks(ctx, registry, options.readOnlyToken);
    }
    if (options.otherWorkspaceToken) {
      log('verify: the other workspace\'s token');
      await runIsolationChecks(ctx, registry, options.otherWorkspaceToken, own?.workspace_slug, flow?.closeOrder && flow.cardUuid ? flow.cardUuid : null);
    }
  } catch (error) {
    stopped = stopOf(error);
  } finally {
    clearTimeout(deadline);
    options.signal?.removeEventListener('abort', onAbort);
    await receiver?.close();
  }
  if (stopped) for (const c of checks.results()) if (c.observations === 0) checks.skip(c.id, `not reached: the run stopped (${stopped.reason})`);
  const results = checks.results();
  return {
    baseUrl: options.baseUrl,
    spec: options.spec,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    requests: probe?.exchanges.length ?? 0,
    seed,
    mode: { writes: options.allowWrites === true, webhooks: options.webhook !== undefined, privateKey: options.privateKeyPem !== undefined },
    ...(stopped ? { stopped: { reason: stopped.reason, message: stopped.message } } : {}),
    checks: results,
    summary: {
      total: results.length,
      passed: results.filter((r) => r.status === 'pass').length,
      failed: results.filter((r) => r.status === 'fail').length,
      skipped: results.filter((r) => r.status === 'skipped').length,
    },
  };
}
