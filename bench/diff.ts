/**
 * Breaking-change diff time: `gen-card-api diff` (read + bundle both sides through the generators' loader, compare,
 * apply the version rule) vs api-smart-diff (parse both files, then `apiCompare`) on the same pairs, in the same
 * run, alternating with the order rotated: (a) the card spec against a copy with 20 changes, (b) the 1,500-operation
 * synthetic spec (bench/generate.ts's replication) against a mutated copy, (c) two versions of GitHub's REST
 * description (`@octokit/openapi`, OpenAPI 3.0 as published, and a 3.1 rendering of both), each tool in its own
 * child process so that its CPU time and peak memory are its own. Prints medians, ratios and the spread.
 * Optic (`@useoptic/optic` 1.0.9) is tried too when OPTIC_BIN points at an installed `optic`; see the note it prints.
 * Run: GITHUB_OPENAPI_BASE=<22.0.0 json> GITHUB_OPENAPI_HEAD=<23.0.2 json> node --import tsx bench/diff.ts
 *      (RUNS=n to change the number of runs; without the two variables the large pair is skipped)
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { apiCompare } from 'api-smart-diff';
import { parse, stringify } from 'yaml';
import { loadSide, runDiff } from '../generators/diff/index.js';
import { median, ratio, replicateOperations, sample } from './lib.js';

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
console.log(`diff time, Node ${process.version}, median of ${runs} runs after a warm-up (file to result, both sides), ours and the peer alternating in one process`);
const rows: Array<{ label: string; a: number; b: number; c: number; ours: { total: number; breaking: number; webhooks: number }; peer: { total: number; breaking: number; webhooks: number } }> = [];
for (const [label, base, head] of pairs) {
  const n = label.startsWith('synthetic') ? Math.max(3, Math.ceil(runs / 2)) : runs;
  const oursCount = await ours(base, head);
  const peerCount = peer(base, head);
  const a: number[] = [];
  const b: number[] = [];
  for (let i = 0; i < n; i += 1) {
    a.push(...(await sample(() => ours(base, head), 1, i === 0 ? 1 : 0)));
    b.push(...(await sample(() => peer(base, head), 1, i === 0 ? 1 : 0)));
  }
  // Our comparison alone, both sides already read (what a second diff against the same base costs).
  const [bm, hm] = [await loadSide(base), await loadSide(head)];
  const c = median(await sample(() => runDiff({ label: base, model: { document: structuredClone(bm.model.document) } }, { label: head, model: { document: structuredClone(hm.model.document) } }), n, 1));
  rows.push({ label, a: median(a), b: median(b), c, ours: oursCount, peer: peerCount });
}
console.log(`${'pair'.padEnd(32)} ${'gen-card-api diff'.padStart(18)} ${'api-smart-diff'.padStart(15)} ${'ratio'.padStart(7)} ${'ours, compare only'.padStart(19)}   changes reported (breaking) [in webhooks]: ours / api-smart-diff`);
for (const r of rows) {
  console.log(
    `${r.label.padEnd(32)} ${`${r.a.toFixed(0)} ms`.padStart(18)} ${`${r.b.toFixed(0)} ms`.padStart(15)} ${ratio(r.a, r.b).padStart(7)} ${`${r.c.toFixed(0)} ms`.padStart(19)}   ${r.ours.total} (${r.ours.breaking}) [${r.ours.webhooks}] / ${r.peer.total} (${r.peer.breaking}) [${r.peer.webhooks}]`,
  );
}
console.log('ours includes bundling both documents with the generators\' loader; api-smart-diff compares the parsed documents only.');

/** A meaning-preserving OpenAPI 3.1 rendering of a 3.0 document: `nullable` into `type`, boolean exclusive bounds, `x-webhooks`. */
function to31(value: any): any {
  if (Array.isArray(value)) return value.map(to31);
  if (!value || typeof value !== 'object') return value;
  const out: any = {};
  for (const [k, v] of Object.entries(value)) out[k] = to31(v);
  if (out.nullable === true && typeof out.type === 'string') out.type = [out.type, 'null'];
  if (typeof out.nullable === 'boolean' && (out.type !== undefined || out.enum || out.properties || out.items)) delete out.nullable;
  if (out.exclusiveMaximum === true && typeof out.maximum === 'number') [out.exclusiveMaximum, out.maximum] = [out.maximum, undefined];
  if (out.exclusiveMinimum === true && typeof out.minimum === 'number') [out.exclusiveMinimum, out.minimum] = [out.minimum, undefined];
  if (out.exclusiveMaximum === false) delete out.exclusiveMaximum;
  if (out.exclusiveMinimum === false) delete out.exclusiveMinimum;
  for (const k of ['maximum', 'minimum']) if (out[k] === undefined) delete out[k];
  return out;
}

/** One tool on one pair in a child process: its CPU time (user + system), peak memory, wall time and verdict. */
function child(tool: 'ours' | 'api-smart-diff', base: string, head: string): { cpu: number; rss: number; wall: number; line: string } {
  const start = performance.now();
  const r = spawnSync(process.execPath, ['--conditions=@card-api/source', '--import', 'tsx', import.meta.filename, '--child', tool, base, head], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const wall = performance.now() - start;
  const last = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  if (r.status !== 0 || !last.startsWith('{')) throw new Error(`${tool} failed: ${r.stderr?.slice(-2000)}`);
  const out = JSON.parse(last);
  return { cpu: out.cpu, rss: out.rss, wall, line: out.line };
}

if (process.argv[2] === '--child') {
  const [, , , tool, base, head] = process.argv;
  let line: string;
  if (tool === 'ours') {
    const r = runDiff(await loadSide(base!), await loadSide(head!));
    line = `${r.changes.length} changes (${r.summary.breaking} breaking), bump ${r.bump}`;
  } else {
    const { diffs } = apiCompare(JSON.parse(readFileSync(base!, 'utf8')), JSON.parse(readFileSync(head!, 'utf8')));
    line = `${diffs.length} changes (${(diffs as Array<{ type: string }>).filter((d) => d.type === 'breaking').length} breaking)`;
  }
  const u = process.resourceUsage();
  console.log(JSON.stringify({ cpu: (u.userCPUTime + u.systemCPUTime) / 1000, rss: u.maxRSS / 1024, line }));
  process.exit(0);
}

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
  const n = Math.max(1, Math.min(runs, Number(process.env.LARGE_RUNS ?? 3)));
  console.log(`\nlarge pair: ${path.basename(path.dirname(path.dirname(gBase)))} … each tool in its own process, ${n} run(s), order rotated; CPU = user + system seconds`);
  for (const [label, base, head] of large) {
    const samples: Record<string, Array<ReturnType<typeof child>>> = { ours: [], 'api-smart-diff': [] };
    for (let i = 0; i < n; i += 1) {
      const order = i % 2 === 0 ? (['ours', 'api-smart-diff'] as const) : (['api-smart-diff', 'ours'] as const);
      for (const tool of order) samples[tool]!.push(child(tool, base, head));
    }
    const cpu = (t: string) => samples[t]!.map((s) => s.cpu);
    const spread = (xs: number[]) => `${(Math.min(...xs) / 1000).toFixed(1)}–${(Math.max(...xs) / 1000).toFixed(1)} s`;
    for (const tool of ['ours', 'api-smart-diff']) {
      const s = samples[tool]!;
      console.log(`${label.padEnd(32)} ${tool.padEnd(15)} CPU ${(median(cpu(tool)) / 1000).toFixed(1)} s (${spread(cpu(tool))}), wall ${(median(s.map((x) => x.wall)) / 1000).toFixed(1)} s, peak ${Math.max(...s.map((x) => x.rss)).toFixed(0)} MB; ${s[0]!.line}`);
    }
    console.log(`${label.padEnd(32)} ratio ours / api-smart-diff (CPU): ${ratio(median(cpu('ours')), median(cpu('api-smart-diff')))}`);
  }
}

const optic = process.env.OPTIC_BIN;
if (optic) {
  const r = spawnSync(optic, ['diff', pairs[0]![1], pairs[0]![2], '--check'], { encoding: 'utf8', timeout: 120_000 });
  const why = (r.stderr ?? '').split('\n').find((l) => /Error|error/.test(l)) ?? '';
  console.log(`\nOptic: ${r.status === 0 || r.status === 1 ? `ran (exit ${r.status})` : `could not run (exit ${r.status}): ${why.slice(0, 200)}`}`);
} else console.log('\nOptic: not measured (set OPTIC_BIN to an installed @useoptic/optic `optic`); 1.0.9 from npm crashes at start-up here, see the note in the report of issue 27.');
