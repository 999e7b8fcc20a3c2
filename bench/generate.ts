/**
 * Generation time: everything gen-card-api generates (types, client, webhooks; load + validate + model +
 * render) vs openapi-typescript alone on the same spec, measured in the same run. Then the same on
 * synthetic specs of 15, 150 and 1,500 operations (the card spec's paths replicated) to show the growth.
 * Run: node --import tsx bench/generate.ts
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { parse, stringify } from 'yaml';
import { TARGETS } from '../generators/index.js';
import { buildModel, loadSpec } from '../generators/model/index.js';
import { median, ratio, replicateOperations, sample } from './lib.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'bench/.out');
mkdirSync(OUT, { recursive: true });

async function ours(file: string): Promise<void> {
  const model = buildModel(await loadSpec(file, { cache: false }));
  for (const target of TARGETS) await target.render(model, { typesImport: 'package' });
}

async function peer(file: string): Promise<void> {
  astToString(await openapiTS(new URL(`file://${file}`), { silent: true }));
}

/** The card spec with its 15 operations replicated `copies` times under distinct paths, ids and resources. */
function synthetic(copies: number): string {
  const doc = replicateOperations(parse(readFileSync(path.join(ROOT, 'spec/openapi.yaml'), 'utf8')), copies);
  const file = path.join(OUT, `synthetic-${copies * 15}.yaml`);
  writeFileSync(file, stringify(doc, { lineWidth: 0 }));
  return file;
}

const runs = Number(process.env.RUNS ?? 7);
console.log(`generation time, Node ${process.version}, median of ${runs} runs after a warm-up, ours and the peer alternating in one process`);
const rows: Array<[string, number, number]> = [];
const specs: Array<[string, string]> = [['card spec (15 ops, 14 webhooks)', path.join(ROOT, 'spec/openapi.yaml')]];
for (const copies of [1, 10, 100]) specs.push([`synthetic ${copies * 15} ops`, synthetic(copies)]);
for (const [label, file] of specs) {
  const n = label.startsWith('synthetic 1500') ? Math.max(3, Math.ceil(runs / 2)) : runs;
  const a = median(await sample(() => ours(file), n, 2));
  const b = median(await sample(() => peer(file), n, 2));
  rows.push([label, a, b]);
}
console.log(`${'spec'.padEnd(34)} ${'gen-card-api (all)'.padStart(18)} ${'openapi-typescript'.padStart(18)} ${'ratio'.padStart(7)}`);
for (const [label, a, b] of rows) console.log(`${label.padEnd(34)} ${`${a.toFixed(0)} ms`.padStart(18)} ${`${b.toFixed(0)} ms`.padStart(18)} ${ratio(a, b).padStart(7)}`);
const syn = rows.slice(1);
console.log('growth per 10x operations (ours): ' + syn.slice(1).map((r, i) => `${(r[1] / syn[i]![1]).toFixed(1)}x`).join(', ') + ' (linear = 10x)');
console.log(`per operation at 1,500 ops: ours ${(syn[2]![1] / 1500).toFixed(2)} ms, openapi-typescript ${(syn[2]![2] / 1500).toFixed(2)} ms`);
console.log(`goal: the card spec under 1 s -> ${rows[0]![1] < 1000 ? 'OK' : 'MISSED'} (${rows[0]![1].toFixed(0)} ms)`);
