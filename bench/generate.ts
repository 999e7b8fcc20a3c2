/**
 * Generation time against openapi-typescript, warm, in one process, on the card spec and on synthetic specs of
 * 15, 150 and 1,500 operations (the card spec's paths replicated), to show the cost per operation.
 *
 * What is timed (modules loaded, every task warmed up by two untimed runs):
 * - `client --out`: what `gen-card-api client --out` does once its modules are loaded: read, bundle and validate
 *   the spec, build the model, render the types (openapi-typescript's transform and printer, plus flat names) and
 *   the client (whose files include the types). Types and client against openapi-typescript's types alone, as
 *   issue 23 sets the goal.
 * - `all packages`: the four package targets of `gen-card-api all` that depend on the spec (types, client,
 *   server, webhooks) from one load and model; the fifth, sandbox-control, renders its own fixed document.
 * - the peer: `openapiTS(new URL(file))` + `astToString`, what `openapi-typescript spec.yaml -o out.ts` does once
 *   loaded: read, lint and bundle with Redocly, transform, print.
 * - the peer with the options our types use (`alphabetize`, `defaultNonNullable: false`): like with like for the
 *   types part. `alphabetize` is not free: openapi-typescript sorts keys with `localeCompare(b, "en-us", { numeric:
 *   true })`, which builds a collator per comparison.
 *
 * Every round runs the tasks in one order, rotated from round to round, each after a forced GC so that no task
 * collects another's garbage. Ratios are of medians against the peer with its default options, with the spread of
 * the per-round ratios (each round's tasks ran back to back, so they share the machine's load at that moment);
 * wall time and process CPU both. Goal: `client --out` at most 1.2x openapi-typescript at every size.
 *
 * Run: node --import tsx bench/generate.ts   (RUNS=n sets the rounds, 7 by default, half as many at 1,500 operations)
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import openapiTS, { astToString } from 'openapi-typescript';
import { parse, stringify } from 'yaml';
import { renderClient, TARGETS } from '../generators/index.js';
import { buildModel, loadSpec } from '../generators/model/index.js';
import { median, replicateOperations } from './lib.js';

const ROOT = path.resolve(import.meta.dirname, '..');
const OUT = path.join(ROOT, 'bench/.out');
mkdirSync(OUT, { recursive: true });

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** What `client --out` renders: the client's files, its types (`types.gen.ts`) among them. */
async function clientOut(file: string): Promise<void> {
  const model = buildModel(await loadSpec(file, { cache: false }));
  await renderClient(model, { typesImport: 'local' }, '.');
}

const PACKAGE_TARGETS = TARGETS.filter((t) => t.spec === undefined);
async function allPackages(file: string): Promise<void> {
  const model = buildModel(await loadSpec(file, { cache: false }));
  for (const target of PACKAGE_TARGETS) await target.render(model, { typesImport: 'package' });
}

async function peer(file: string): Promise<void> {
  astToString(await openapiTS(new URL(`file://${file}`), { silent: true }));
}

/** The peer with the options @card-api/types is generated with (sorted keys, `default` not implying required). */
async function peerLikeOurs(file: string): Promise<void> {
  astToString(await openapiTS(new URL(`file://${file}`), { silent: true, alphabetize: true, defaultNonNullable: false }));
}

/** The card spec with its 15 operations replicated `copies` times under distinct paths, ids and resources. */
function synthetic(copies: number): string {
  const doc = replicateOperations(parse(readFileSync(path.join(ROOT, 'spec/openapi.yaml'), 'utf8')), copies);
  const file = path.join(OUT, `synthetic-${copies * 15}.yaml`);
  writeFileSync(file, stringify(doc, { lineWidth: 0 }));
  return file;
}

const TASKS = { 'client --out': clientOut, 'all packages': allPackages, 'openapi-typescript': peer, 'openapi-ts, our options': peerLikeOurs } as const;
type TaskName = keyof typeof TASKS;
const NAMES = Object.keys(TASKS) as TaskName[];
const PEER: TaskName = 'openapi-typescript';

interface Times {
  wall: number[];
  cpu: number[];
}

async function measure(file: string, rounds: number): Promise<Record<TaskName, Times>> {
  for (const name of NAMES) for (let i = 0; i < 2; i++) await TASKS[name](file);
  const times = Object.fromEntries(NAMES.map((n) => [n, { wall: [], cpu: [] }])) as unknown as Record<TaskName, Times>;
  for (let round = 0; round < rounds; round++) {
    for (let i = 0; i < NAMES.length; i++) {
      const name = NAMES[(i + round) % NAMES.length]!;
      gc();
      const cpu = process.cpuUsage();
      const start = performance.now();
      await TASKS[name](file);
      times[name].wall.push(performance.now() - start);
      const used = process.cpuUsage(cpu);
      times[name].cpu.push((used.user + used.system) / 1000);
    }
  }
  return times;
}

const runs = Number(process.env.RUNS ?? 7);
const specs: Array<{ label: string; file: string; operations: number }> = [{ label: 'card spec (15 ops, 14 webhooks)', file: path.join(ROOT, 'spec/openapi.yaml'), operations: 15 }];
for (const copies of [1, 10, 100]) specs.push({ label: `synthetic ${(copies * 15).toLocaleString('en-US')} ops`, file: synthetic(copies), operations: copies * 15 });

console.log(`generation time, Node ${process.version}, warm, one process; each round runs the ${NAMES.length} tasks in a rotated order, each after a forced GC`);
console.log('ratios: of median wall times against openapi-typescript (default options), with the spread of the per-round ratios; CPU likewise (process CPU, GC threads included)');
const results: Array<{ label: string; operations: number; rounds: number; times: Record<TaskName, Times> }> = [];
for (const spec of specs) {
  const rounds = spec.operations >= 1500 ? Math.max(3, Math.ceil(runs / 2)) : runs;
  results.push({ ...spec, rounds, times: await measure(spec.file, rounds) });
}

const ratioText = (r: { operations: number; times: Record<TaskName, Times> }, name: TaskName, kind: keyof Times): string => {
  const per = r.times[name][kind].map((t, i) => t / r.times[PEER][kind][i]!);
  return `${(median(r.times[name][kind]) / median(r.times[PEER][kind])).toFixed(2)}x (${Math.min(...per).toFixed(2)}-${Math.max(...per).toFixed(2)})`;
};
for (const r of results) {
  console.log(`\n${r.label}, ${r.rounds} rounds`);
  console.log(`  ${'task'.padEnd(26)} ${'wall'.padStart(8)} ${'cpu'.padStart(8)}   ${'wall / peer (rounds)'.padEnd(22)} ${'cpu / peer (rounds)'.padEnd(22)} ${'ms/op'.padStart(6)}`);
  for (const name of NAMES) {
    const w = median(r.times[name].wall);
    const c = median(r.times[name].cpu);
    const vs = name === PEER ? ['', ''] : [ratioText(r, name, 'wall'), ratioText(r, name, 'cpu')];
    console.log(`  ${name.padEnd(26)} ${`${w.toFixed(0)} ms`.padStart(8)} ${`${c.toFixed(0)} ms`.padStart(8)}   ${vs[0]!.padEnd(22)} ${vs[1]!.padEnd(22)} ${(w / r.operations).toFixed(2).padStart(6)}`);
  }
}

const synth = results.slice(1);
console.log('\nper operation (median wall / operations) and marginal cost from 150 to 1,500 operations:');
for (const name of NAMES) {
  const per = synth.map((r) => `${r.operations} ops ${(median(r.times[name].wall) / r.operations).toFixed(2)} ms`);
  const marginal = (median(synth[2]!.times[name].wall) - median(synth[1]!.times[name].wall)) / (synth[2]!.operations - synth[1]!.operations);
  console.log(`  ${name.padEnd(26)} ${per.join(', ')}; marginal ${marginal.toFixed(2)} ms/op`);
}
console.log('\nclient --out against each peer, median ratio by CPU and by wall, per size:');
for (const peerName of [PEER, 'openapi-ts, our options'] as const) {
  const line = results.map((r) => {
    const m = (k: keyof Times) => (median(r.times['client --out'][k]) / median(r.times[peerName][k])).toFixed(2);
    return `${r.operations.toLocaleString('en-US')} ops ${m('cpu')}x cpu / ${m('wall')}x wall`;
  });
  console.log(`  vs ${peerName.padEnd(24)} ${line.join(', ')}`);
}
const worst = (peerName: TaskName, k: keyof Times) => Math.max(...results.map((r) => median(r.times['client --out'][k]) / median(r.times[peerName][k])));
for (const peerName of [PEER, 'openapi-ts, our options'] as const) {
  const [cpu, wall] = [worst(peerName, 'cpu'), worst(peerName, 'wall')];
  console.log(`goal: client --out at most 1.2x ${peerName} at every size -> by CPU ${cpu <= 1.2 ? 'OK' : 'MISSED'} (worst ${cpu.toFixed(2)}x), by wall ${wall <= 1.2 ? 'OK' : 'MISSED'} (worst ${wall.toFixed(2)}x)`);
}
const card = median(results[0]!.times['all packages'].wall);
console.log(`goal: every package target from the card spec under 1 s -> ${card < 1000 ? 'OK' : 'MISSED'} (${card.toFixed(0)} ms)`);
