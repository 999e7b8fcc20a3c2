/**
 * `gen-card-api verify`: points the contract at a live server. Read-only by default; `allowWrites` adds the
 * typical flow; `webhook` adds a receiver whose deliveries are judged. Returns the report; never throws for a
 * server that departs from the contract (that is a failed check), only for a run that cannot start.
 */
import { CheckRecorder, FIXED_CHECKS, listCheckId, type VerifyReport } from './checks.js';
import type { VerifyContext } from './context.js';
import { Probe } from './http.js';
import { runAuthAndRefusals, runReadChecks } from './read.js';
import { VerifySpec } from './spec.js';
import { runWebhookChecks, WebhookReceiver } from './webhooks.js';
import { runWriteFlow, type FlowResult } from './writes.js';

export { formatReport, redact, type ReportFormat } from './report.js';
export { SchemaValidator, VerifySpec } from './spec.js';
export { FIXED_CHECKS, listCheckId, type CheckResult, type CheckStatus, type VerifyReport } from './checks.js';
export { WebhookReceiver } from './webhooks.js';
export { Probe } from './http.js';
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
  log?: (line: string) => void;
  /** Called once the receiver listens, with its port (tests register the endpoint then). */
  onListening?: (port: number) => void | Promise<void>;
  fetch?: typeof fetch;
}

export async function runVerify(options: VerifyOptions): Promise<VerifyReport> {
  const started = Date.now();
  const spec = await VerifySpec.load(options.spec);
  const checks = new CheckRecorder(FIXED_CHECKS);
  for (const op of spec.listOperations()) checks.define({ id: listCheckId(op.operationId), title: `${op.method} ${op.route}: every page's meta and links are consistent, the pages hold meta.total distinct items`, needs: 'read' });
  const log = options.log ?? (() => undefined);
  const probe = new Probe({ baseUrl: options.baseUrl, token: options.token, spec, checks, fetch: options.fetch });
  const ctx: VerifyContext = { spec, probe, checks, perPage: options.perPage ?? 5, maxPages: options.maxPages ?? 20, maxItems: options.maxItems ?? 50, log };

  let receiver: WebhookReceiver | null = null;
  if (options.webhook) {
    receiver = new WebhookReceiver(options.webhook);
    const port = await receiver.listen();
    log(`verify: webhook receiver on ${options.webhook.host}:${port}`);
    await options.onListening?.(port);
  }
  try {
    log('verify: token, refusals');
    await runAuthAndRefusals(ctx);
    let flow: FlowResult | null = null;
    if (options.allowWrites) {
      log('verify: write flow (issue, idempotency, top-up, freeze, unfreeze, close)');
      flow = await runWriteFlow(ctx, { pollIntervalMs: options.pollIntervalMs ?? 2000, orderTimeoutMs: options.orderTimeoutMs ?? 60_000, closeTimeoutMs: options.closeTimeoutMs ?? 120_000 });
    } else {
      for (const d of FIXED_CHECKS.filter((c) => c.needs === 'writes')) checks.skip(d.id, 'needs --allow-writes (verify is read-only without it)');
    }
    log('verify: lists, pagination, reads by uuid');
    await runReadChecks(ctx);
    if (receiver) {
      await runWebhookChecks(ctx, receiver, flow, { waitMs: options.webhookWaitMs ?? 60_000, privateKeyPem: options.privateKeyPem });
    } else {
      for (const d of FIXED_CHECKS.filter((c) => c.needs !== 'read' && c.needs !== 'writes')) checks.skip(d.id, 'needs --webhook-listen and --webhook-secret');
    }
    if (!options.allowWrites) for (const d of FIXED_CHECKS.filter((c) => c.needs === 'writes+webhooks' || c.needs === 'private-key')) checks.skip(d.id, 'needs --allow-writes');
  } finally {
    await receiver?.close();
  }
  const results = checks.results();
  return {
    baseUrl: options.baseUrl,
    spec: options.spec,
    startedAt: new Date(started).toISOString(),
    durationMs: Date.now() - started,
    requests: probe.exchanges.length,
    mode: { writes: options.allowWrites === true, webhooks: receiver !== null, privateKey: options.privateKeyPem !== undefined },
    checks: results,
    summary: {
      total: results.length,
      passed: results.filter((r) => r.status === 'pass').length,
      failed: results.filter((r) => r.status === 'fail').length,
      skipped: results.filter((r) => r.status === 'skipped').length,
    },
  };
}
