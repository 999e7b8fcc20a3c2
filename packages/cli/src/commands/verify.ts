/**
 * `gen-card-api verify`: checks a live server (staging, the sandbox) against the spec and the contract, check by
 * check. Read-only unless `--allow-writes`; with `--webhook-listen` and `--webhook-secret` it also receives and
 * judges the server's webhooks. Exit 0 when every check passes or is skipped, 1 when one fails, 2 on a usage
 * error or when the run cannot start or go on (the spec, the server at the transport level: no answer, a timeout,
 * a body too large or too deep, a wait it will not make, the deadline), which the report names. The token and
 * card secrets are never printed.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { terminalSafe } from '../terminal.js';
import type { ReportFormat } from '../verify/report.js';
import { applyInputFlags, withInputFlags, type InputFlags } from '../input-flags.js';

interface VerifyCommandOptions extends InputFlags {
  baseUrl?: string;
  token?: string;
  spec?: string;
  allowWrites?: boolean;
  webhookListen?: { host: string; port: number };
  webhookSecret?: string;
  privateKey?: string;
  redeliveryProbe: boolean;
  format: ReportFormat;
  output?: string;
  perPage: number;
  maxPages: number;
  maxItems: number;
  pollInterval: number;
  orderTimeout: number;
  closeTimeout: number;
  webhookWait: number;
  requestTimeout: number;
  maxResponseSize: number;
  deadline?: number;
  seed?: number;
  maxExamples: number;
  inputBudget: number;
  readOnlyToken?: string;
  otherWorkspaceToken?: string;
}

function seedOf(value: string): number {
  if (!/^-?\d{1,10}$/.test(value) || Number(value) < -(2 ** 31) || Number(value) >= 2 ** 31) throw new InvalidArgumentError('--seed must be a 32-bit integer, as a report prints it.');
  return Number(value);
}

function positiveInt(name: string, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max) throw new InvalidArgumentError(`${name} must be an integer from 1 to ${max}.`);
    return Number(value);
  };
}

/** A size in bytes, with an optional k, m or g suffix (powers of 1024): `512k`, `8m`. */
function byteSize(value: string): number {
  const m = /^(\d+)([kmg]?)i?b?$/i.exec(value.trim());
  const bytes = m ? Number(m[1]) * 1024 ** ['', 'k', 'm', 'g'].indexOf(m[2]!.toLowerCase()) : NaN;
  if (!Number.isSafeInteger(bytes) || bytes < 1024 || bytes > 1024 ** 3) throw new InvalidArgumentError('--max-response-size must be a size from 1k to 1g, such as 512k or 8m.');
  return bytes;
}

function hostPort(value: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value);
  if (!m || Number(m[3]) > 65_535) throw new InvalidArgumentError('--webhook-listen must be <host>:<port>, such as 127.0.0.1:4020.');
  return { host: m[1] ?? m[2]!, port: Number(m[3]) };
}

function httpUrl(value: string): string {
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return value;
  } catch {
    // Reported below.
  }
  throw new InvalidArgumentError('--base-url must be an http:// or https:// URL (the API root, ending in /api/v1).');
}

/**
 * Adds `verify` to the program.
 *
 * @example
 * // shell: gen-card-api verify --base-url http://127.0.0.1:4010/api/v1 --token "$CARD_API_TOKEN" --format junit > verify.xml
 * registerVerifyCommand(program);
 */
export function registerVerifyCommand(program: Command): void {
  const command = withInputFlags(
    program
      .command('verify')
      .description('check a live server against the spec and the contract, check by check (read-only unless --allow-writes); exit 0 all pass, 1 a check failed, 2 usage error or the run could not start or go on (the report says why)')
      .addOption(new Option('--base-url <url>', 'the API root, ending in /api/v1').env('CARD_API_BASE_URL').argParser(httpUrl))
      .addOption(new Option('--token <token>', 'a workspace API token (prefer the environment variable: arguments show in ps)').env('CARD_API_TOKEN'))
      .option('--spec <file|url|->', 'OpenAPI 3.1 spec to verify against: a file, an http(s) URL or - for stdin (default: the bundled spec/openapi.yaml)'),
  )
    .option('--allow-writes', 'also run the write flow: issue a card with the smallest allowed amounts, idempotency, top-up, freeze, unfreeze, close')
    .addOption(new Option('--webhook-listen <host:port>', 'receive the server\'s webhooks on <host:port> during the run (register that URL with the server first)').argParser(hostPort))
    .addOption(new Option('--webhook-secret <whsec_...>', 'the signing secret of that webhook endpoint').env('CARD_API_WEBHOOK_SECRET'))
    .option('--private-key <pem>', 'RSA private key (PEM file) to decrypt card.issued.secrets; the secrets are checked, never printed')
    .addOption(new Option('--read-only-token <token>', 'a token of the same workspace without write abilities (settings screen): every write must be refused 403, every read it may do served').env('CARD_API_READ_ONLY_TOKEN'))
    .addOption(new Option('--other-workspace-token <token>', "a token of another workspace (its settings screen): nothing of this workspace may be readable with it").env('CARD_API_OTHER_WORKSPACE_TOKEN'))
    .option('--seed <n>', 'seed of the generated inputs (a report prints the one it used; the same seed replays them)', seedOf)
    .option('--max-examples <n>', 'generated requests per property (valid, invalid, unknown query parameter) and operation', positiveInt('--max-examples', 10_000), 20)
    .option('--input-budget <s>', 'time for all generated requests, shrinking included, in seconds', positiveInt('--input-budget', 86_400), 60)
    .option('--no-redelivery-probe', 'do not refuse the first delivery once (the probe that makes the server redeliver it)')
    .addOption(new Option('--format <format>', 'report format').choices(['text', 'json', 'junit']).default('text'))
    .option('-o, --output <file>', 'write the report to <file> instead of stdout')
    .option('--per-page <n>', 'items per page when walking lists', positiveInt('--per-page', 100), 5)
    .option('--max-pages <n>', 'most pages read per list', positiveInt('--max-pages', 10_000), 20)
    .option('--max-items <n>', 'most listed cards and orders fetched by uuid', positiveInt('--max-items', 10_000), 50)
    .option('--poll-interval <ms>', 'order polling interval in milliseconds (the contract suggests 2000 to 5000)', positiveInt('--poll-interval', 60_000), 2000)
    .option('--order-timeout <s>', 'longest wait for an order to end, in seconds', positiveInt('--order-timeout', 86_400), 60)
    .option('--close-timeout <s>', 'longest wait for close stage 2, in seconds (after it the check is skipped)', positiveInt('--close-timeout', 86_400), 120)
    .option('--webhook-wait <s>', 'longest wait for the expected webhooks, in seconds', positiveInt('--webhook-wait', 86_400), 60)
    .option('--request-timeout <s>', 'longest time for one answer, to the last byte of its body, in seconds (a slower one stops the run, exit 2)', positiveInt('--request-timeout', 3600), 30)
    .option('--max-response-size <size>', 'largest response body (or webhook delivery) read, such as 512k or 8m (a larger one stops the run, exit 2)', byteSize, 8 * 1024 * 1024)
    .option('--deadline <s>', 'longest time for the whole run, in seconds (default 600 plus --order-timeout, --close-timeout and --webhook-wait); past it the run stops, exit 2', positiveInt('--deadline', 7 * 86_400))
    .action(async (opts: VerifyCommandOptions) => {
      const usage = (message: string): never => command.error(`gen-card-api verify: ${message}`, { exitCode: 2, code: 'verify.usage' });
      if (!opts.baseUrl) usage('--base-url (or CARD_API_BASE_URL) is required');
      if (!opts.token) usage('--token (or CARD_API_TOKEN) is required');
      if (opts.webhookListen && !opts.webhookSecret) usage('--webhook-listen needs --webhook-secret (or CARD_API_WEBHOOK_SECRET)');
      if (opts.privateKey && !opts.webhookListen) usage('--private-key needs --webhook-listen: the secrets arrive by webhook');
      let privateKeyPem: string | undefined;
      if (opts.privateKey) {
        try {
          privateKeyPem = readFileSync(opts.privateKey, 'utf8');
        } catch (error) {
          usage(`--private-key: cannot read ${opts.privateKey}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
        }
      }
      const secrets = [opts.token!, ...(opts.webhookSecret ? [opts.webhookSecret] : []), ...(opts.readOnlyToken ? [opts.readOnlyToken] : []), ...(opts.otherWorkspaceToken ? [opts.otherWorkspaceToken] : [])];
      // Loaded here, not up front: the engine pulls in the spec loader and Ajv, which other commands never need.
      applyInputFlags(opts);
      const { formatReport, redact, runVerify } = await import('../verify/index.js');
      const { DEFAULT_SPEC } = await import('../../../../generators/core/assets.js');
      const report = await runVerify({
        baseUrl: opts.baseUrl!,
        token: opts.token!,
        spec: opts.spec ?? DEFAULT_SPEC,
        allowWrites: opts.allowWrites === true,
        ...(opts.webhookListen ? { webhook: { ...opts.webhookListen, secret: opts.webhookSecret!, provokeRedelivery: opts.redeliveryProbe } } : {}),
        ...(privateKeyPem ? { privateKeyPem } : {}),
        perPage: opts.perPage,
        maxPages: opts.maxPages,
        maxItems: opts.maxItems,
        pollIntervalMs: opts.pollInterval,
        orderTimeoutMs: opts.orderTimeout * 1000,
        closeTimeoutMs: opts.closeTimeout * 1000,
        webhookWaitMs: opts.webhookWait * 1000,
        requestTimeoutMs: opts.requestTimeout * 1000,
        maxResponseBytes: opts.maxResponseSize,
        ...(opts.deadline ? { deadlineMs: opts.deadline * 1000 } : {}),
        ...(opts.seed !== undefined ? { seed: opts.seed } : {}),
        maxExamples: opts.maxExamples,
        inputBudgetMs: opts.inputBudget * 1000,
        ...(opts.readOnlyToken ? { readOnlyToken: opts.readOnlyToken } : {}),
        ...(opts.otherWorkspaceToken ? { otherWorkspaceToken: opts.otherWorkspaceToken } : {}),
        log: (line) => console.error(terminalSafe(redact(line, secrets))),
      });
      const text = redact(formatReport(report, opts.format), secrets);
      if (opts.output) writeFileSync(opts.output, text);
      else process.stdout.write(text);
      if (opts.output || opts.format !== 'text') console.error(`verify: ${report.summary.passed} passed, ${report.summary.failed} failed, ${report.summary.skipped} skipped in ${(report.durationMs / 1000).toFixed(1)} s`);
      if (report.stopped) console.error(terminalSafe(redact(`verify: stopped (${report.stopped.reason}): ${report.stopped.message}`, secrets)));
      process.exitCode = report.stopped ? 2 : report.summary.failed > 0 ? 1 : 0;
    });
  // Usage errors (unknown option, bad value, missing requirement) exit 2; help exits 0.
  command.exitOverride((error) => {
    process.exit(error.exitCode === 0 ? 0 : 2);
  });
}
