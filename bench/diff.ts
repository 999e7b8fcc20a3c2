/**
 * Breaking-change diff time: `gen-card-api diff` (load + bundle + validate both sides through the generators'
 * loader, build both models, compare, apply the version rule) vs api-smart-diff (parse both YAML files, then
 * `apiCompare`) on the same pairs, in the same run, alternating: (a) the card spec against a copy with 20 changes,
 * (b) the 1,500-operation synthetic spec (bench/generate.ts's replication) against a mutated copy. Prints the
 * median wall time of each, the ratio, and how many changes (and breaking ones) each tool reports.
 * Run: node --import tsx bench/diff.ts   (RUNS=n to change the number of runs)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { apiCompare } from 'api-smart-diff';
import { parse, stringify } from 'yaml';
import { runDiff } from '../generators/diff/index.js';
import { buildModel, loadSpec } from '../generators/model/index.js';
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
  const [b, h] = await Promise.all([loadSpec(base, { cache: false }), loadSpec(head, { cache: false })]);
  const result = runDiff({ label: base, model: buildModel(b) }, { label: head, model: buildModel(h) });
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
  // Our comparison alone, both models already built (what a second diff against the same base costs).
  const [bm, hm] = [buildModel(await loadSpec(base, { cache: false })), buildModel(await loadSpec(head, { cache: false }))];
  const c = median(await sample(() => runDiff({ label: base, model: bm }, { label: head, model: hm }), n, 1));
  rows.push({ label, a: median(a), b: median(b), c, ours: oursCount, peer: peerCount });
}
console.log(`${'pair'.padEnd(32)} ${'gen-card-api diff'.padStart(18)} ${'api-smart-diff'.padStart(15)} ${'ratio'.padStart(7)} ${'ours, compare only'.padStart(19)}   changes reported (breaking) [in webhooks]: ours / api-smart-diff`);
for (const r of rows) {
  console.log(
    `${r.label.padEnd(32)} ${`${r.a.toFixed(0)} ms`.padStart(18)} ${`${r.b.toFixed(0)} ms`.padStart(15)} ${ratio(r.a, r.b).padStart(7)} ${`${r.c.toFixed(0)} ms`.padStart(19)}   ${r.ours.total} (${r.ours.breaking}) [${r.ours.webhooks}] / ${r.peer.total} (${r.peer.breaking}) [${r.peer.webhooks}]`,
  );
}
console.log('ours includes validating both documents against the OpenAPI 3.1 schema and building the generators\' model; api-smart-diff compares the parsed documents only.');
