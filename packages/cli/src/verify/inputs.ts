/**
 * Generated inputs (checks `input.*`): for every operation of the spec, requests generated from its parameters and
 * body schema (fast-check, seeded: `--seed` replays a run). Valid requests must be served or refused for a
 * documented business reason; each constraint broken in turn (and malformed JSON, another content type, a missing
 * required body) must be refused `422 validation.failed`; an unknown query parameter must not break anything;
 * optional bodies and parameters may be left out, and an omitted `per_page` or `page` gives the declared default.
 * A failure is shrunk by fast-check to a smallest request, printed as a curl line with the seed that replays it.
 *
 * Requests go to card uuids that exist nowhere (a random v4 uuid), so that no write reaches a real card; a valid
 * `POST` without path parameters (it issues a card) is sent only with `--allow-writes`.
 */
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import type { Json, VerifyContext } from './context.js';
import { bodyViolations, flatten, leafViolations, validValue, wireValue } from './generate.js';
import { answered, evidenceOf, hasCode, type Exchange, type ProbeRequest } from './http.js';
import type { SpecOperation } from './spec.js';

export interface InputOptions {
  seed: number;
  /** Requests per property (valid, invalid, unknown query) per operation. */
  maxExamples: number;
  /** Time for all generated requests together, in ms (shrinking included). */
  budgetMs: number;
  allowWrites: boolean;
  /**
   * A card of this workspace that refuses every write (closed or closing), for the card routes: an invalid request
   * to it must be refused 422, where one to an unknown card may also be refused 404.
   */
  closedCard?: string | null;
}

interface Case {
  params: Record<string, string>;
  query: Record<string, string>;
  body?: unknown;
  raw?: { text: string; type: string | null };
  /** The constraint broken, for an invalid case. */
  broken?: string;
}

const NOT_FOUND = /\.not_found$/;

/** The request body an operation declares: its schema and whether it is required. */
export function requestBodyOf(ctx: VerifyContext, op: SpecOperation): { schema: Json; required: boolean } | null {
  let rb = op.op.requestBody as Json | undefined;
  if (rb && typeof rb.$ref === 'string') rb = ctx.spec.document.components?.requestBodies?.[rb.$ref.split('/').pop()!];
  const schema = rb?.content?.['application/json']?.schema as Json | undefined;
  return schema ? { schema, required: rb?.required === true } : null;
}

/** Whether the abilities a token has satisfy one of the operation's security requirements (scopes = abilities). */
export function abilityAllows(ctx: VerifyContext, op: SpecOperation, abilities: readonly string[]): boolean {
  const requirements = (op.op.security ?? ctx.spec.document.security ?? []) as Json[];
  if (requirements.length === 0) return true;
  return requirements.some((r) => Object.values(r).every((scopes) => (scopes as string[]).every((s) => abilities.includes(s))));
}

/** Whether an operation needs a token at all. */
export const needsToken = (ctx: VerifyContext, op: SpecOperation): boolean => ((op.op.security ?? ctx.spec.document.security ?? []) as Json[]).some((r) => Object.keys(r).length > 0);

function toRequest(probe: VerifyContext['probe'], op: SpecOperation, c: Case): ProbeRequest {
  const path = probe.pathOf(op.operationId, c.params);
  const base: ProbeRequest = { method: op.method, path, query: c.query };
  if (c.raw) return { ...base, rawBody: c.raw.text, contentType: c.raw.type };
  return c.body === undefined ? base : { ...base, body: c.body };
}

/** The card route's operations take the closed card when there is one (writes to it are refused whatever the body). */
function fixedParams(ctx: VerifyContext, op: SpecOperation, closedCard: string | null | undefined): Record<string, string> | null {
  const cardRoute = ctx.spec.operation('getCard').route;
  const params = ctx.spec.pathParameters(op);
  if (!closedCard || params.length !== 1 || !(op.route === cardRoute || op.route.startsWith(`${cardRoute}/`))) return null;
  return { [String(params[0]!.name)]: closedCard };
}

/** Valid path parameters: fresh uuids (resources that exist nowhere), or the schema's values. */
function paramsArb(ctx: VerifyContext, op: SpecOperation, fixed: Record<string, string> | null = null): fc.Arbitrary<Record<string, string>> {
  if (fixed) return fc.constant(fixed);
  const entries = ctx.spec.pathParameters(op).map((p) => [String(p.name), validValue(ctx.spec.document, p.schema).map(wireValue)] as const);
  return fc.record(Object.fromEntries(entries));
}

function queryParameters(ctx: VerifyContext, op: SpecOperation): Json[] {
  return op.parameters.filter((p) => p.in === 'query');
}

function queryArb(ctx: VerifyContext, op: SpecOperation): fc.Arbitrary<Record<string, string>> {
  const params = queryParameters(ctx, op);
  const record = Object.fromEntries(params.map((p) => [String(p.name), validValue(ctx.spec.document, p.schema).map(wireValue)]));
  return fc.record(record, { requiredKeys: params.filter((p) => p.required === true).map((p) => String(p.name)) });
}

function validArb(ctx: VerifyContext, op: SpecOperation, fixed: Record<string, string> | null = null): fc.Arbitrary<Case> {
  const body = requestBodyOf(ctx, op);
  const bodyArb: fc.Arbitrary<unknown> = body ? (body.required ? validValue(ctx.spec.document, body.schema) : fc.option(validValue(ctx.spec.document, body.schema), { nil: undefined })) : fc.constant(undefined);
  return fc.record({ params: paramsArb(ctx, op, fixed), query: queryArb(ctx, op), body: bodyArb }).map((c) => (c.body === undefined ? { params: c.params, query: c.query } : c));
}

/** The single-constraint changes of an operation's requests: body fields, the body as a whole, query and path parameters. */
function invalidChanges(ctx: VerifyContext, op: SpecOperation): Array<{ broken: string; apply: (c: Case) => Case }> {
  const doc = ctx.spec.document;
  const changes: Array<{ broken: string; apply: (c: Case) => Case }> = [];
  const body = requestBodyOf(ctx, op);
  if (body) {
    // The body as a whole first: a parser's faults (malformed JSON, another content type) are the likeliest 500s.
    changes.push({ broken: 'body: malformed JSON', apply: (c) => ({ ...c, body: undefined, raw: { text: `${JSON.stringify(c.body ?? {}).slice(0, -1)},`, type: 'application/json' } }) });
    changes.push({ broken: 'body: content type text/plain', apply: (c) => ({ ...c, body: undefined, raw: { text: JSON.stringify(c.body ?? {}), type: 'text/plain' } }) });
    if (body.required) changes.push({ broken: 'body: required, left out', apply: (c) => ({ params: c.params, query: c.query }) });
    for (const v of bodyViolations(doc, body.schema)) changes.push({ broken: `body: ${v.constraint}`, apply: (c) => ({ ...c, body: v.apply(c.body ?? {}) }) });
  }
  for (const p of queryParameters(ctx, op)) {
    for (const v of leafViolations(doc, p.schema, true)) changes.push({ broken: `query ${String(p.name)}: ${v.constraint}`, apply: (c) => ({ ...c, query: { ...c.query, [p.name]: wireValue(v.value) } }) });
  }
  for (const p of ctx.spec.pathParameters(op)) {
    for (const v of leafViolations(doc, p.schema, true)) changes.push({ broken: `path ${String(p.name)}: ${v.constraint}`, apply: (c) => ({ ...c, params: { ...c.params, [p.name]: wireValue(v.value) } }) });
  }
  return changes;
}

/** An answer whose status the operation does not declare: `http.status-declared` counts it, noted as also seen here. */
function undeclared(ctx: VerifyContext, id: string, x: Exchange): boolean {
  if (!x.operation || ctx.spec.declaredResponse(x.operation, x.status)) return false;
  ctx.checks.alsoSeen('http.status-declared', id);
  return true;
}

/** A valid request is served, or refused for a documented business reason; never a 5xx, 400, 401 or 403. */
function judgeValid(ctx: VerifyContext, id: string, op: SpecOperation, hasPathParams: boolean): (x: Exchange) => string[] {
  // hasPathParams: the resource may not exist (an unknown uuid), so 404 *.not_found is right too.
  const code = (x: Exchange, expected: RegExp) => hasCode(ctx.checks, id, x, expected);
  return (x) => {
    if (undeclared(ctx, id, x)) return [];
    if (op.method === 'GET') {
      if (x.status === 200) return [];
      if (hasPathParams && x.status === 404 && code(x, NOT_FOUND)) return [];
      return [`a valid request: ${answered(x)}, expected 200${hasPathParams ? ' (or 404 *.not_found for an unknown uuid)' : ''}`];
    }
    if (x.status === 202) return [];
    if (x.status === 404 && code(x, NOT_FOUND)) return [];
    if ([402, 409, 422].includes(x.status) && code(x, /./)) return [];
    return [`a valid request: ${answered(x)}, expected 202 or a documented refusal (402, 404, 409, 422)`];
  };
}

/** An invalid request is refused 422 validation.failed (or 404 when it names a resource that does not exist). */
function judgeInvalid(ctx: VerifyContext, hasPathParams: boolean): (x: Exchange, c: Case) => string[] {
  return (x, c) => {
    if (x.status < 500 && undeclared(ctx, 'input.invalid', x)) return [];
    if (x.status === 422 && hasCode(ctx.checks, 'input.invalid', x, 'validation.failed')) return [];
    if (hasPathParams && x.status === 404 && hasCode(ctx.checks, 'input.invalid', x, NOT_FOUND)) return [];
    return [`${c.broken ?? 'an invalid request'}: ${answered(x)}, expected 422 validation.failed`];
  };
}

export interface PropertyResult {
  failed: boolean;
  runs: number;
}

/**
 * Runs one property against the server: fast-check draws cases, each becomes a request, `judge` lists what is wrong
 * with the answer. A failure is shrunk (each step another request, within the time budget) and recorded once, with
 * the smallest failing request as a curl line and the seed.
 */
export async function runProperty<C>(ctx: VerifyContext, checkId: string, what: string, arb: fc.Arbitrary<C>, request: (c: C) => ProbeRequest, judge: (x: Exchange, c: C) => string[], options: { seed: number; numRuns: number; timeMs: number; replaySeed: number; allowance?: { left: number } }): Promise<PropertyResult> {
  let stopped: unknown = null;
  let last: { request: ProbeRequest; problems: string[]; x: Exchange } | null = null;
  let runs = 0;
  let interrupted = false;
  // fast-check's time limit stops waiting for a property, not the request it is in: that request (maybe asleep on
  // a Retry-After) is awaited before the next property starts, so verify never has two requests in flight.
  let inFlight: Promise<unknown> = Promise.resolve();
  const evidence: string[] = [];
  const send = async (c: C): Promise<boolean> => {
    if (stopped !== null || interrupted) return true;
    if (options.allowance) {
      if (options.allowance.left <= 0) return true;
      options.allowance.left--;
    }
    const req = request(c);
    try {
      const x = await ctx.probe.request(req);
      runs++;
      if (evidence.length < 3) evidence.push(evidenceOf(x));
      const problems = judge(x, c);
      if (problems.length === 0) return true;
      if (!interrupted || last === null) last = { request: req, problems, x };
      return false;
    } catch (error) {
      // The run cannot go on (deadline, transport): not a counterexample.
      stopped = error;
      return true;
    }
  };
  await fc.check(
    fc.asyncProperty(arb, (c) => {
      const sent = send(c);
      inFlight = sent;
      return sent;
    }),
    { seed: options.seed, numRuns: options.numRuns, interruptAfterTimeLimit: Math.max(1, options.timeMs), markInterruptAsFailure: false },
  );
  interrupted = true;
  await inFlight;
  if (stopped !== null) throw stopped;
  const found = last as { request: ProbeRequest; problems: string[]; x: Exchange } | null;
  if (found) {
    ctx.checks.fail(checkId, `${found.problems.join('; ')}; replay: ${ctx.probe.curlOf(found.request)} (gen-card-api verify --seed ${options.replaySeed})`, [evidenceOf(found.x)]);
    return { failed: true, runs };
  }
  if (runs > 0) ctx.checks.pass(checkId, `${what}: ${runs} generated request(s)`, evidence);
  return { failed: false, runs };
}

/**
 * The generated-input checks over every operation of the spec, in two phases. First the deterministic probes, one
 * request each: every operation bare (and the list defaults), with an unknown query parameter, and with each of its
 * constraints broken once (malformed JSON and another content type first). They wait out a 429 as the server asks
 * (within the probe's caps), so a token with a low per-minute ceiling still gets all of them, and only the input
 * budget cuts them. Then, with what is left of the budget and of the token's minute, the random examples.
 */
export async function runInputChecks(ctx: VerifyContext, options: InputOptions): Promise<void> {
  const { spec, checks } = ctx;
  // The budget is the server's time: waits on Retry-After (bounded by the probe's own caps) do not spend it.
  const deadline = Date.now() + options.budgetMs;
  const waitedBefore = ctx.probe.rateLimitWait.waitedMs;
  const timeLeft = () => deadline + (ctx.probe.rateLimitWait.waitedMs - waitedBefore) - Date.now();
  const ops = spec.operations.filter((op) => op.method === 'GET' || spec.pathParameters(op).length > 0 || options.allowWrites);
  const changes = new Map(ops.map((op) => [op, invalidChanges(ctx, op)] as const));
  let n = 0;
  const next = (numRuns: number, timeMs: number, allowance?: { left: number }) => ({ seed: (options.seed + n++) | 0, numRuns, timeMs, replaySeed: options.seed, ...(allowance ? { allowance } : {}) });
  if (!options.allowWrites) checks.skip('input.valid', 'needs --allow-writes for the operations that create resources');
  const setup = ops.map((op) => {
    const fixed = fixedParams(ctx, op, options.closedCard);
    // An unknown uuid may be refused 404; the closed card exists, so only the documented answers to it count.
    const hasPath = spec.pathParameters(op).length > 0 && fixed === null;
    const label = `${op.method} ${op.route}`;
    const req = (c: Case) => toRequest(ctx.probe, op, c);
    // An unknown query parameter is ignored (the answer a valid request gets) or refused 422; never a 5xx.
    const valid = judgeValid(ctx, 'input.unknown-query', op, hasPath);
    const unknown = {
      arb: validArb(ctx, op, fixed).map((c) => ({ ...c, query: { ...c.query, verify_unknown_parameter: '1' } })),
      judge: (x: Exchange) => (x.status === 422 && hasCode(ctx.checks, 'input.unknown-query', x, 'validation.failed') ? [] : valid(x).map((p) => `unknown query parameter verify_unknown_parameter: ${p.replace(/^a valid request: /, '')}`)),
    };
    const invalid = (changes.get(op) ?? []).map((change) => ({ broken: change.broken, arb: validArb(ctx, op, fixed).map((c): Case => ({ ...change.apply(c), broken: change.broken })) }));
    return { op, fixed, hasPath, label, req, unknown, invalid, judgeInvalid: judgeInvalid(ctx, hasPath), failed: false };
  });

  // Phase 1: the deterministic probes; breadth first (every operation, then the next constraint of each), so a cut
  // budget still covers every operation. One failure per operation is enough to report.
  await runOmittedAndDefaults(ctx);
  const probes: Array<() => Promise<void>> = [];
  for (const s of setup) {
    probes.push(async () => void (await runProperty(ctx, 'input.unknown-query', s.label, s.unknown.arb, s.req, s.unknown.judge, next(1, timeLeft()))));
  }
  const rounds = Math.max(0, ...setup.map((s) => s.invalid.length));
  for (let i = 0; i < rounds; i++) {
    for (const s of setup) {
      const change = s.invalid[i];
      if (!change) continue;
      probes.push(async () => {
        if (s.failed) return;
        s.failed = (await runProperty(ctx, 'input.invalid', `${s.label} ${change.broken}`, change.arb, s.req, s.judgeInvalid, next(1, timeLeft()))).failed;
      });
    }
  }
  let sent = 0;
  let cutBy = '';
  for (const probe of probes) {
    if (timeLeft() <= 0) {
      cutBy = `the input budget of ${options.budgetMs / 1000} s (--input-budget) was spent (waits on Retry-After not counted)`;
      break;
    }
    // The token's minute is used up: the next request waits out a 429. Only while that leaves one longest wait of
    // the run's allowance to the checks after this phase, which must not be stopped for these probes.
    const wait = ctx.probe.rateLimitWait;
    if (ctx.probe.rateLimit?.remaining === 0 && wait.leftMs < 2 * wait.longestMs) {
      cutBy = `the token's per-minute ceiling (${ctx.probe.rateLimit.limit}, X-RateLimit-Limit) is reached and the run keeps its last ${wait.leftMs / 1000} s of waits on Retry-After for its other checks`;
      break;
    }
    await probe();
    sent++;
  }
  if (sent < probes.length) {
    const reason = `deterministic input probes cut short: ${probes.length - sent} of ${probes.length} not sent, ${cutBy}`;
    ctx.log(`verify: ${reason}`);
    for (const id of ['input.invalid', 'input.unknown-query']) checks.skip(id, reason);
  }

  // Phase 2: random examples with what is left. A token with a low per-minute ceiling (its X-RateLimit-* headers)
  // spends what is left of its minute, less a reserve for the checks after this phase; these never wait on a 429.
  const rate = ctx.probe.rateLimit;
  const allowance = rate && rate.limit < 6000 ? { left: Math.max(0, rate.remaining - Math.min(60, Math.floor(rate.limit / 2))) } : undefined;
  // `owner`: the operation whose invalid requests these are (one failure per operation is enough).
  const random: Array<{ id: string; label: string; arb: fc.Arbitrary<Case>; req: (c: Case) => ProbeRequest; judge: (x: Exchange, c: Case) => string[]; numRuns: number; owner?: (typeof setup)[number] }> = [];
  for (const s of setup) random.push({ id: 'input.unknown-query', label: s.label, arb: s.unknown.arb, req: s.req, judge: s.unknown.judge, numRuns: options.maxExamples - 1 });
  for (const s of setup) {
    if (s.failed) continue;
    const perChange = Math.max(2, Math.ceil(options.maxExamples / Math.max(1, s.invalid.length)));
    for (const change of s.invalid) random.push({ id: 'input.invalid', label: `${s.label} ${change.broken}`, arb: change.arb, req: s.req, judge: s.judgeInvalid, numRuns: perChange - 1, owner: s });
  }
  for (const s of setup) random.push({ id: 'input.valid', label: s.label, arb: validArb(ctx, s.op, s.fixed), req: s.req, judge: judgeValid(ctx, 'input.valid', s.op, s.hasPath), numRuns: options.maxExamples });
  let done = 0;
  for (const [i, p] of random.entries()) {
    if (timeLeft() <= 0 || (allowance && allowance.left <= 0)) break;
    if (p.numRuns <= 0 || p.owner?.failed) {
      done++;
      continue;
    }
    const r = await runProperty(ctx, p.id, p.label, p.arb, p.req, p.judge, next(p.numRuns, Math.floor(timeLeft() / (random.length - i)), allowance));
    if (r.failed && p.owner) p.owner.failed = true;
    done++;
  }
  if (done < random.length) {
    const why = allowance && allowance.left <= 0 ? `the token allows ${rate!.limit} requests a minute (X-RateLimit-Limit), and the run keeps what is left for its other checks` : `the input budget of ${options.budgetMs / 1000} s (--input-budget) was spent`;
    const reason = `random input examples cut short (the deterministic probes ran first): ${random.length - done} of ${random.length} properties not run, ${why}`;
    ctx.log(`verify: ${reason}`);
    for (const id of ['input.valid', 'input.invalid', 'input.unknown-query']) ctx.checks.skip(id, reason);
  }
}

/**
 * Optional bodies and parameters left out: every operation sent with its required parts only (an unknown uuid for
 * a path parameter); every list without parameters then also gives the declared defaults of `page` and `per_page`,
 * and as many items as that default allows.
 */
async function runOmittedAndDefaults(ctx: VerifyContext): Promise<void> {
  const { spec, checks, probe } = ctx;
  for (const op of spec.operations) {
    const body = requestBodyOf(ctx, op);
    if (body?.required) continue;
    if (queryParameters(ctx, op).some((p) => p.required === true)) continue;
    if (op.method !== 'GET' && spec.pathParameters(op).length === 0) continue;
    const hasPath = spec.pathParameters(op).length > 0;
    const params = Object.fromEntries(spec.pathParameters(op).map((p) => [String(p.name), randomUUID()]));
    const request: ProbeRequest = { method: op.method, path: probe.pathOf(op.operationId, params) };
    const x = await probe.request(request);
    const problems = judgeValid(ctx, 'input.optional-omitted', op, hasPath)(x).map((p) => `${p.replace(/^a valid request/, 'every optional part left out')}; replay: ${probe.curlOf(request)}`);
    checks.expect('input.optional-omitted', problems, `${op.method} ${op.route} with its optional parts left out: ${x.status}`, [evidenceOf(x)]);
    if (op.method !== 'GET' || hasPath || x.status !== 200 || !spec.listOperations().includes(op)) continue;
    const perPageDefault = flatten(spec.document, spec.queryParameter(op, 'per_page')?.schema)?.default;
    const pageDefault = flatten(spec.document, spec.queryParameter(op, 'page')?.schema)?.default;
    const meta = x.body?.meta as Json | undefined;
    const data = x.body?.data as unknown[] | undefined;
    const d: string[] = [];
    if (typeof perPageDefault === 'number') {
      if (meta?.per_page !== perPageDefault) d.push(`${op.method} ${x.target} without per_page: meta.per_page is ${JSON.stringify(meta?.per_page)}, the declared default is ${perPageDefault}`);
      if (Array.isArray(data) && typeof meta?.total === 'number' && data.length !== Math.min(perPageDefault, meta.total)) d.push(`${op.method} ${x.target} without per_page: ${data.length} item(s) of ${meta.total}, the declared default ${perPageDefault} makes ${Math.min(perPageDefault, meta.total)}`);
    }
    if (typeof pageDefault === 'number' && meta?.current_page !== pageDefault) d.push(`${op.method} ${x.target} without page: meta.current_page is ${JSON.stringify(meta?.current_page)}, the declared default is ${pageDefault}`);
    if (typeof perPageDefault === 'number' || typeof pageDefault === 'number') checks.expect('input.defaults', d, `${op.operationId}: defaults page ${String(pageDefault)}, per_page ${String(perPageDefault)} (${data?.length ?? 0} of ${String(meta?.total)} item(s))`, [evidenceOf(x)]);
  }
}
