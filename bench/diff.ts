/**
 * Breaking-change diff time against the peers, in one run.
 *
 * In process, rounds with the order alternating (ours first, then the peer first): `gen-card-api diff` (read + bundle both sides with loadOpenApiDocument, compare, apply the
 * version rule) and api-smart-diff (parse both files, `apiCompare`) on (a) the card spec against a copy with 20
 * changes and (b) the 1,500-operation synthetic spec (bench/generate.ts's replication) against a mutated copy.
 *
 * Process by process, interleaved with the order rotated, each tool's CPU (user + system, from GNU time) and peak
 * memory its own: (c) the card pair as a user meets it, spec/released/v1.yaml against spec/openapi.yaml, cold, with
 * the compiled CLI (`npm run build` first; the sources through tsx otherwise); (d) two versions of GitHub's REST
 * description (`@octokit/openapi`, OpenAPI 3.0 as published) and a meaning-preserving 3.1 rendering of both.
 * Optic (`@useoptic/optic`) joins (c), and (d) with LARGE_OPTIC=1, when OPTIC_BIN points at its `optic`.
 *
 * Run: GITHUB_OPENAPI_BASE=<older api.github.com.json> GITHUB_OPENAPI_HEAD=<newer one> node --import tsx bench/diff.ts
 *      RUNS=n (in-process and card runs), LARGE_RUNS=n (3); without the two variables the large pair is skipped.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { apiCompare } from 'api-smart-diff';
import { parse, stringify } from 'yaml';
import { loadSide, runDiff } from '../generators/diff/index.js';
import { median, ratio, replicateOperations, sample } from './lib.js';

// A child process measures one tool on one pair and nothing else: it must exit before the in-process pairs run.
if (process.argv[2] === '--child') {
  const [, , , tool, base, head] = process.argv;
  let line: string;
  if (tool === 'ours') {
    const r = runDiff(await loadSide(base!), await loadSide(head!));
    line = `${r.changes.length} changes (${r.summary.breaking} breaking) reaching ${r.changes.reduce((n, c) => n + c.places.length, 0)} places, bump ${r.bump}`;
  } else {
    const read = (file: string) => (file.endsWith('.json') ? JSON.parse(readFileSync(file, 'utf8')) : parse(readFileSync(file, 'utf8')));
    const { diffs } = apiCompare(read(base!), read(head!));
    line = `${diffs.length} changes (${(diffs as Array<{ type: string }>).filter((d) => d.type === 'breaking').length} breaking)`;
  }
  const u = process.resourceUsage();
  console.log(JSON.stringify({ cpu: (u.userCPUTime + u.systemCPUTime) / 1000, rss: u.maxRSS / 1024, line }));
  process.exit(0);
}

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'bench/.out');
mkdirSync(OUT, { recursive: true });

/** 20 edits of the card spec, across requests, responses, webhooks, parameters, security and enums. */
const EDITS: Array<(d: any, r: (route: string) => string) => void> = [
  (d) => delete d.components.schemas.Order.properties.related_card_id,
  (d) => (d.components.schemas.Order.required = d.components.schemas.Order.required.filter((n: string) => n !== 'failure_reason')),
  (d) => (d.components.schemas.Card.properties.pan_last4.type = ['string', 'null']),
  (d) => (d.components.schemas.Card.properties.nickname = { type: 'string' }),
  (d) => d.components.schemas.CreateCardRequest.required.push('purpose'),
  (d) => (d.components.schemas.CreateCardRequest.properties.notes.maxLength = 200),
  (d) => (d.components.schemas.CardActionRequest.properties.reason.type = 'string'),
  (d) => (d.components.parameters.PerPage.schema.default = 20),
  (d) => (d.components.parameters.PerPage.schema.maximum = 50),
  (d) => (d.components.parameters.IdempotencyKeyIssue.required = true),
  (d) => {
    d.components.schemas.ConsumptionBillKind.enum.push('fee');
    d.components.schemas.ConsumptionBillKind['x-enumDescriptions'].fee = 'A fee.';
  },
  (d) => (d.components.schemas.OrderStatus.enum = d.components.schemas.OrderStatus.enum.filter((v: string) => v !== 'awaiting_platform')),
  (d) => delete d.webhooks['card.unfrozen'],
  (d) => delete d.components.schemas.OrderCompletedData.properties.completed_at,
  (d) => (d.components.schemas.OrderFailedData.properties.card_uuid.format = 'uri'),
  (d) => (d.components.schemas.EventEnvelope.properties.event_id.type = 'string'),
  (d) => (d.components.parameters.ServiceSignature.name = 'X-Signature'),
  (d, r) => (d.paths[r('/card-products')].get.security = [{ bearerAuth: ['cards.read'] }]),
  (d, r) => delete d.paths[r('/cards')].post.responses['402'],
  (d, r) => (d.paths[r('/cards')].get.parameters.find((p: any) => p.name === 'search').required = true),
];

const synthetic = replicateOperations;

function write(name: string, doc: any): string {
  const file = path.join(OUT, name);
  writeFileSync(file, stringify(doc, { lineWidth: 0 }));
  return file;
}

const card = parse(readFileSync(path.join(ROOT, 'spec/openapi.yaml'), 'utf8'));
const cardHead = structuredClone(card);
EDITS.forEach((e) => e(cardHead, (r) => r));
const syn = synthetic(card, 100);
const synHead = structuredClone(syn);
EDITS.forEach((e) => e(synHead, (r) => `/r0${r}`));
// And per-copy edits on every tenth replica: an operation removed, a parameter made required.
for (let i = 0; i < 100; i += 10) {
  delete synHead.paths[`/r${i}/wallet`].get;
  synHead.paths[`/r${i}/orders`].get.parameters.find((p: any) => p.name === 'status').required = true;
}
const pairs: Array<[string, string, string]> = [
  ['card spec vs 20 changes', write('diff-card-base.yaml', card), write('diff-card-head.yaml', cardHead)],
  ['synthetic 1500 ops vs mutated', write('diff-syn-base.yaml', syn), write('diff-syn-head.yaml', synHead)],
];

async function ours(base: string, head: string) {
  const result = runDiff(await loadSide(base), await loadSide(head));
  return { total: result.changes.length, breaking: result.summary.breaking, webhooks: result.changes.filter((c) => c.location.event !== undefined).length };
}

function peer(base: string, head: string) {
  const { diffs } = apiCompare(parse(readFileSync(base, 'utf8')), parse(readFileSync(head, 'utf8')));
  const list = diffs as Array<{ type: string; path?: unknown[] }>;
  return { total: list.length, breaking: list.filter((d) => d.type === 'breaking').length, webhooks: list.filter((d) => Array.isArray(d.path) && d.path[0] === 'webhooks').length };
}

const runs = Number(process.env.RUNS ?? 7);
console.log(`diff time, Node ${process.version}, median of ${runs} runs after a warm-up (file to result, both sides), ours and the peer in one process, the order alternating round by round`);
const spreads = new Map<string, number[]>();
const rows: Array<{ label: string; a: number; b: number; c: number; ours: { total: number; breaking: number; webhooks: number }; peer: { total: number; breaking: number; webhooks: number } }> = [];
for (const [label, base, head] of pairs) {
  const n = label.startsWith('synthetic') ? Math.max(3, Math.ceil(runs / 2)) : runs;
  const oursCount = await ours(base, head);
  const peerCount = peer(base, head);
  const a: number[] = [];
  const b: number[] = [];
  await ours(base, head);
  peer(base, head);
  // Rounds with the order alternating: ours first in one, the peer first in the next.
  for (let i = 0; i < n; i += 1) {
    for (const side of i % 2 === 0 ? (['ours', 'peer'] as const) : (['peer', 'ours'] as const)) {
      if (side === 'ours') a.push(...(await sample(() => ours(base, head), 1, 0)));
      else b.push(...(await sample(() => peer(base, head), 1, 0)));
    }
  }
  spreads.set(label, a.map((x, i) => x / b[i]!));
  // Our comparison alone, both sides already read (what a second diff against the same base costs).
  const [bm, hm] = [await loadSide(base), await loadSide(head)];
  const c = median(await sample(() => runDiff({ label: base, model: { document: structuredClone(bm.model.document) } }, { label: head, model: { document: structuredClone(hm.model.document) } }), n, 1));
  rows.push({ label, a: median(a), b: median(b), c, ours: oursCount, peer: peerCount });
}
console.log(`${'pair'.padEnd(32)} ${'gen-card-api diff'.padStart(18)} ${'api-smart-diff'.padStart(15)} ${'ratio'.padStart(7)} ${'ours, compare only'.padStart(19)}   changes reported (breaking) [in webhooks]: ours / api-smart-diff`);
for (const r of rows) {
  console.log(
    `${r.label.padEnd(32)} ${`${r.a.toFixed(0)} ms`.padStart(18)} ${`${r.b.toFixed(0)} ms`.padStart(15)} ${ratio(r.a, r.b).padStart(7)} ${`${r.c.toFixed(0)} ms`.padStart(19)}   ${r.ours.total} (${r.ours.breaking}) [${r.ours.webhooks}] / ${r.peer.total} (${r.peer.breaking}) [${r.peer.webhooks}]; ratio per round ${Math.min(...spreads.get(r.label)!).toFixed(2)}-${Math.max(...spreads.get(r.label)!).toFixed(2)}`,
  );
}
console.log('ours includes reading and bundling both documents (loadOpenApiDocument); api-smart-diff compares the parsed documents only.');

/** A meaning-preserving OpenAPI 3.1 rendering of a 3.0 document: `nullable` into `type`, boolean exclusive bounds, `x-webhooks`. */
function to31(value: any): any {
  if (Array.isArray(value)) return value.map(to31);
  if (!value || typeof value !== 'object') return value;
  const out: any = {};
  for (const [k, v] of Object.entries(value)) out[k] = to31(v);
  if (out.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  // 3.1 reads `enum` strictly: a nullable enum must list null itself.
  if (out.nullable === true && Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.nullable === 'boolean' && (out.type !== undefined || out.enum || out.properties || out.items)) delete out.nullable;
  if (out.exclusiveMaximum === true && typeof out.maximum === 'number') [out.exclusiveMaximum, out.maximum] = [out.maximum, undefined];
  if (out.exclusiveMinimum === true && typeof out.minimum === 'number') [out.exclusiveMinimum, out.minimum] = [out.minimum, undefined];
  if (out.exclusiveMaximum === false) delete out.exclusiveMaximum;
  if (out.exclusiveMinimum === false) delete out.exclusiveMinimum;
  for (const k of ['maximum', 'minimum']) if (out[k] === undefined) delete out[k];
  return out;
}

/** One measured process: CPU (user + system) and peak memory from GNU time when the machine has it, else wall only. */
interface Sample {
  cpu: number;
  rss: number;
  wall: number;
  line: string;
}
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
const DIST = path.join(ROOT, 'packages/cli/dist/main.js');
/** What the installed bin does (bin/gen-card-api.js without src/ beside it): import the compiled CLI and run it. */
const CLI = path.join(OUT, 'gen-card-api-dist.mjs');
if (existsSync(DIST)) writeFileSync(CLI, `const cli = await import(${JSON.stringify(pathToFileURL(DIST).href)});\nawait cli.main();\n`);

type Tool = 'ours' | 'api-smart-diff' | 'optic';
/** The command line of one tool on one pair. Ours is the compiled CLI when built (what a user runs), else the sources. */
function command(tool: Tool, base: string, head: string): [string, string[]] {
  if (tool === 'optic') return [process.env.OPTIC_BIN!, ['diff', base, head, '--check']];
  if (tool === 'ours' && existsSync(DIST)) return [process.execPath, [CLI, 'diff', base, head, '--format', 'json']];
  return [process.execPath, ['--conditions=@card-api/source', '--import', 'tsx', import.meta.filename, '--child', tool, base, head]];
}

function verdictLine(tool: Tool, stdout: string): string {
  if (tool === 'optic') return `${stdout.split('\n').filter((l) => /^\s*x \[/.test(l)).length} breaking findings`;
  const text = stdout.trim();
  if (text.startsWith('{') && text.includes('"summary"')) {
    const r = JSON.parse(text) as { changes: unknown[]; summary: { breaking: number }; bump: string };
    return `${r.changes.length} changes (${r.summary.breaking} breaking), bump ${r.bump}`;
  }
  return (JSON.parse(text.split('\n').pop() ?? '{}') as { line?: string }).line ?? '?';
}

function measure(tool: Tool, base: string, head: string): Sample {
  const [cmd, args] = command(tool, base, head);
  const start = performance.now();
  // Optic sends telemetry unless told not to; nothing here leaves the machine.
  const env = { ...process.env, OPTIC_TELEMETRY_LEVEL: 'off' };
  const r = GNU_TIME
    ? spawnSync(GNU_TIME, ['-f', '@@time %U %S %M', cmd, ...args], { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env, timeout: 900_000 })
    : spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024, env, timeout: 900_000 });
  const wall = performance.now() - start;
  // 0 no change, 1 changes found: both are a complete run.
  if (r.status !== 0 && r.status !== 1) throw new Error(`${tool} failed (exit ${r.status}): ${r.stderr?.slice(-2000)}`);
  const t = /@@time ([\d.]+) ([\d.]+) (\d+)/.exec(r.stderr ?? '');
  return { cpu: t ? (Number(t[1]) + Number(t[2])) * 1000 : NaN, rss: t ? Number(t[3]) / 1024 : NaN, wall, line: verdictLine(tool, r.stdout ?? '') };
}

/** Each tool in its own process, interleaved with the order rotated; prints median CPU and wall, spread, peak, ratios. */
function processTable(label: string, base: string, head: string, tools: Tool[], n: number): void {
  const samples = new Map<Tool, Sample[]>(tools.map((t) => [t, []]));
  for (let i = 0; i < n; i += 1) {
    const order = tools.map((_, k) => tools[(k + i) % tools.length]!);
    for (const tool of order) samples.get(tool)!.push(measure(tool, base, head));
  }
  const s = (x: number) => `${(x / 1000).toFixed(2)} s`;
  const spread = (xs: number[]) => `${s(Math.min(...xs))}–${s(Math.max(...xs))}`;
  const med = (tool: Tool, k: 'cpu' | 'wall') => median(samples.get(tool)!.map((x) => x[k]));
  for (const tool of tools) {
    const xs = samples.get(tool)!;
    const name = tool === 'ours' ? (existsSync(DIST) ? 'ours (built CLI)' : 'ours (sources)') : tool;
    console.log(`${label.padEnd(30)} ${name.padEnd(17)} CPU ${s(med(tool, 'cpu'))} (${spread(xs.map((x) => x.cpu))}), wall ${s(med(tool, 'wall'))} (${spread(xs.map((x) => x.wall))}), peak ${Math.max(...xs.map((x) => x.rss)).toFixed(0)} MB; ${xs[0]!.line}`);
  }
  for (const tool of tools.filter((t) => t !== 'ours')) {
    console.log(`${label.padEnd(30)} ratio ours / ${tool}: CPU ${ratio(med('ours', 'cpu'), med(tool, 'cpu'))}, wall ${ratio(med('ours', 'wall'), med(tool, 'wall'))}`);
  }
}

const optic = process.env.OPTIC_BIN ?? null;
const peers: Tool[] = ['api-smart-diff', ...(optic ? (['optic'] as const) : [])];
console.log(`\n${os.loadavg()[0]!.toFixed(1)} 1-minute load at the start of the process-level runs (${os.cpus().length} cores); CPU = user + system${GNU_TIME ? '' : ' (no /usr/bin/time: wall only)'}`);

// The card pair as a user meets it: the released spec against the working one, one cold process per run.
const cardRuns = Math.max(3, Number(process.env.CARD_RUNS ?? runs));
console.log(`card pair cold, ${cardRuns} runs: ${existsSync(DIST) ? 'the compiled CLI (packages/cli/dist, as its installed bin runs it): diff spec/released/v1.yaml spec/openapi.yaml' : 'run `npm run build` first to time the compiled CLI'}`);
processTable('card pair (released → head)', path.join(ROOT, 'spec/released/v1.yaml'), path.join(ROOT, 'spec/openapi.yaml'), ['ours', ...peers], cardRuns);



const gBase = process.env.GITHUB_OPENAPI_BASE;
const gHead = process.env.GITHUB_OPENAPI_HEAD;
if (gBase && gHead && existsSync(gBase) && existsSync(gHead)) {
  const b31 = path.join(OUT, 'github-base.3.1.json');
  const h31 = path.join(OUT, 'github-head.3.1.json');
  for (const [from, to] of [[gBase, b31], [gHead, h31]] as const) {
    const doc = to31(JSON.parse(readFileSync(from, 'utf8')));
    doc.openapi = '3.1.0';
    if (doc['x-webhooks']) [doc.webhooks, doc['x-webhooks']] = [doc['x-webhooks'], undefined];
    writeFileSync(to, JSON.stringify(doc));
  }
  const large = [['GitHub REST 3.0 (as published)', gBase, gHead], ['GitHub REST 3.1 rendering', b31, h31]] as const;
  const n = Math.max(1, Number(process.env.LARGE_RUNS ?? 3));
  const tools: Tool[] = ['ours', ...(process.env.LARGE_OPTIC === '1' ? peers : ['api-smart-diff' as const])];
  console.log(`\nlarge pair: GitHub's REST description, ${path.basename(gBase)} of two @octokit/openapi versions, ${n} run(s) each`);
  for (const [label, base, head] of large) processTable(label, base, head, tools, n);
}

if (!optic) console.log('\nOptic: not measured (set OPTIC_BIN to an installed @useoptic/optic `optic`; 1.0.9 needs one ajv in its tree, see docs/diff-checks.md).');
