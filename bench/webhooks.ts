/**
 * Webhook verification cost and bundle size of the webhook runtime (templates/webhooks), in ONE run,
 * reported as ratios between tasks of this run (never against numbers from another run).
 *
 * - ours (constructEvent: verify + parse) vs raw node:crypto HMAC + timingSafeEqual + JSON.parse
 *   on the same ~1 kB body; goal <= 1.10x.
 * - ours vs stripe.webhooks.constructEvent (Stripe's own signing helper makes its header).
 * - ours on WebCrypto (constructEventAsync) vs stripe.webhooks.constructEventAsync with its SubtleCryptoProvider.
 * - esbuild bundle + minify + gzip of the main entry (index.ts: verify, sign, dispatcher, dedupe; without
 *   the JWE entry); goal <= 3 kB. Also the other entries (adapters, web, lifeline, secrets with and without
 *   jose inlined) and main + adapters together.
 *
 * Ratios compare median latencies (robust to GC pauses); ops/s is tinybench's mean throughput.
 *
 * Run: node --import tsx bench/webhooks.ts
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import Stripe from 'stripe';
import { Bench } from 'tinybench';
import { realisticBody } from '../templates/webhooks/__fixtures__/events.js';
// The published package's entries: the generated bindings over the runtime, as users import them.
import { constructEvent, signPayload } from '../packages/webhooks/src/index.js';
import { constructEventAsync } from '../packages/webhooks/src/web.js';

const SECRET = 'whsec_bench_7d0e2a563b1f4c8e9a6d2f5b8c1e4a90';
const text = realisticBody();
// Frameworks hand over a Buffer (express.raw, Fastify parseAs 'buffer', node:http): bench that case.
const body = Buffer.from(text);
const t = Math.floor(Date.now() / 1000);
const header = signPayload(body, SECRET, { timestamp: t });
const stripe = new Stripe('sk_test_bench');
const stripeHeader = stripe.webhooks.generateTestHeaderString({ payload: text, secret: SECRET, timestamp: t });
const subtle = Stripe.createSubtleCryptoProvider();

/** The floor: what any correct verifier must do, written inline with no checks beyond the essentials. */
function raw(b: Buffer, h: string, secret: string): unknown {
  const parts = h.split(',');
  const ts = parts[0]!.slice(2);
  const sig = Buffer.from(parts[1]!.slice(3), 'hex');
  const mac = createHmac('sha256', secret).update(`${ts}.`).update(b).digest();
  if (sig.length !== mac.length || !timingSafeEqual(mac, sig)) throw new Error('bad signature');
  if (Math.abs(Date.now() / 1000 - Number(ts)) > 300) throw new Error('too old');
  return JSON.parse(b.toString('utf8'));
}

type Task = [name: string, fn: () => unknown];
const syncTasks: Task[] = [
  ['ours: constructEvent', () => constructEvent(body, header, SECRET)],
  ['raw: hmac+timingSafeEqual+parse', () => raw(body, header, SECRET)],
  ['stripe: constructEvent', () => stripe.webhooks.constructEvent(body, stripeHeader, SECRET)],
];
const asyncTasks: Task[] = [
  ['ours: constructEventAsync', () => constructEventAsync(body, header, SECRET)],
  ['stripe: constructEventAsync', () => stripe.webhooks.constructEventAsync(body, stripeHeader, SECRET, undefined, subtle)],
];

// Sanity: every task verifies and returns the same event, so none is measured doing less.
for (const [name, fn] of [...syncTasks, ...asyncTasks]) {
  const event = (await fn()) as { event_id?: number };
  if (event?.event_id !== 73_421_118) throw new Error(`${name} did not return the event`);
}

const TIME_MS = 2000;
let sink: unknown;
const bench = new Bench({ time: TIME_MS, warmupTime: 500 });
for (const [name, fn] of syncTasks) bench.add(name, () => void (sink = fn()));
for (const [name, fn] of asyncTasks) bench.add(name, async () => void (sink = await fn()));
await bench.run();

const stats = new Map(
  bench.tasks.map((task) => {
    const r = task.result;
    if (r.state !== 'completed') throw new Error(`${task.name}: ${r.state}`);
    return [task.name, { ops: r.throughput.mean, p50Us: r.latency.p50 * 1000, meanUs: r.latency.mean * 1000, rme: r.latency.rme }] as const;
  }),
);
const get = (name: string) => stats.get(name)!;

console.log(`webhook verification, Node ${process.versions.node}, ${body.length}-byte body, one run (${TIME_MS} ms per task)`);
console.table(
  [...stats].map(([name, s]) => ({ task: name, 'ops/s': Math.round(s.ops), 'median us': +s.p50Us.toFixed(2), 'mean us': +s.meanUs.toFixed(2), 'rme %': +s.rme.toFixed(2) })),
);
const ratio = (a: string, b: string, goal?: number) => {
  const r = get(a).p50Us / get(b).p50Us;
  const byOps = get(b).ops / get(a).ops;
  const verdict = goal === undefined ? '' : r <= goal ? ` (goal <= ${goal.toFixed(2)}x) OK` : ` (goal <= ${goal.toFixed(2)}x) OVER`;
  console.log(`${`${a} / ${b}`.padEnd(62)} ${r.toFixed(3)}x median time, ${byOps.toFixed(3)}x by ops/s${verdict}`);
};
ratio('ours: constructEvent', 'raw: hmac+timingSafeEqual+parse', 1.1);
ratio('ours: constructEvent', 'stripe: constructEvent');
ratio('ours: constructEventAsync', 'stripe: constructEventAsync');
ratio('ours: constructEventAsync', 'ours: constructEvent');

// ---- bundle sizes ----
const root = fileURLToPath(new URL('../packages/webhooks/src/', import.meta.url));
async function gzipSize(entries: string[], platform: 'node' | 'neutral', external: string[]): Promise<{ min: number; gz: number }> {
  const contents = entries.map((e) => `export * from './${e}';`).join('\n');
  const out = await build({
    stdin: { contents, resolveDir: root, loader: 'ts' },
    bundle: true,
    minify: true,
    format: 'esm',
    platform,
    external,
    write: false,
    logLevel: 'silent',
  });
  const code = out.outputFiles[0]!.contents;
  return { min: code.length, gz: gzipSync(code, { level: 9 }).length };
}
const kB = (n: number) => `${(n / 1024).toFixed(2)} kB`;
const sizes: [string, { min: number; gz: number }, number?][] = [
  ['index.ts (main entry, node)', await gzipSize(['index.js'], 'node', ['node:*']), 3072],
  ['adapters.ts (node/express/fastify)', await gzipSize(['adapters.js'], 'node', ['node:*'])],
  ['index.ts + adapters.ts together', await gzipSize(['index.js', 'adapters.js'], 'node', ['node:*'])],
  ['web.ts (WebCrypto + fetch adapter)', await gzipSize(['web.js'], 'neutral', [])],
  ['lifeline.ts', await gzipSize(['lifeline.js'], 'neutral', [])],
  ['secrets.ts (jose external)', await gzipSize(['secrets.js'], 'neutral', ['jose'])],
  ['secrets.ts (jose inlined)', await gzipSize(['secrets.js'], 'neutral', [])],
];
console.log('\nbundle sizes (esbuild bundle + minify, gzip -9):');
for (const [name, s, goal] of sizes) {
  const verdict = goal === undefined ? '' : s.gz <= goal ? ` (goal <= ${kB(goal)}) OK` : ` (goal <= ${kB(goal)}) OVER`;
  console.log(`${name.padEnd(36)} min ${kB(s.min).padStart(9)}  gzip ${kB(s.gz).padStart(8)}${verdict}`);
}
void sink;
