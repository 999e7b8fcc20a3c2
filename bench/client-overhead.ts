/**
 * Per-call overhead of the client runtime (templates/client) for a GET like /cards/{uuid},
 * against bare openapi-fetch and against raw fetch + res.json(), all over the same in-process
 * fetch that answers a fixed JSON body, so only client-side work is measured.
 *
 * Each task runs in batches, interleaved with the others in rounds whose order rotates; the ratio is the median of
 * the per-round ratios of wall time per call, printed with their spread, and the same of process CPU time beside it
 * (a batch preempted on the shared machine loses wall time, not CPU time; CPU also counts GC threads).
 *
 * Run: node --import tsx bench/client-overhead.ts   (BENCH_ROUNDS, BENCH_BATCH_MS)
 * Goal: ours / openapi-fetch <= 1.15.
 */
import createClient from 'openapi-fetch';
import { ClientCore, type OperationDescriptor } from '../templates/client/index.js';
import { interleaved, median, pairedRatio } from './lib.js';

const BASE = 'https://api.example.test/api/v1';
const TOKEN = 'bench_sk_0123456789abcdef';
const UUID = '7d0e2a56-3b1f-4c8e-9a6d-2f5b8c1e4a90';
const BODY = JSON.stringify({
  data: {
    uuid: UUID,
    status: 'active',
    cardholder_type: 'user',
    cardholder_first_name: 'Ada',
    cardholder_last_name: 'Lovelace',
    masked_pan: '411111******1111',
    pan_last4: '1111',
    pan_bin: '411111',
    currency: 'USD',
    card_balance: '100.00',
    held_amount: '0.00',
    available_balance: '100.00',
    card_product_id: 1,
    issued_at: '2026-01-01T00:00:00Z',
    created_at: '2026-01-01T00:00:00Z',
  },
});
const RESPONSE_HEADERS = { 'content-type': 'application/json', 'x-request-id': 'req_bench' };

/** The server: a fresh Response per call (a body can be read once), nothing else. */
const fetchImpl = async (_input: Request): Promise<Response> => new Response(BODY, { status: 200, headers: RESPONSE_HEADERS });

interface Paths {
  '/cards/{uuid}': {
    get: {
      parameters: { path: { uuid: string } };
      responses: { 200: { content: { 'application/json': { data: { uuid: string } } } } };
    };
  };
}

const getCard = { method: 'get', path: '/cards/{uuid}', write: false } as const satisfies OperationDescriptor;
const ours = new ClientCore({ token: TOKEN, baseUrl: BASE, fetch: fetchImpl });
const bare = createClient<Paths>({
  baseUrl: BASE,
  fetch: fetchImpl,
  headers: { Authorization: `Bearer ${TOKEN}`, Accept: 'application/json' },
});
const rawHeaders = { Authorization: `Bearer ${TOKEN}`, Accept: 'application/json' };
const params = { path: { uuid: UUID } };
const bareInit = { params: { path: { uuid: UUID } } };

const variants: Array<[string, () => Promise<{ uuid?: string } | undefined>]> = [
  ['ours: ClientCore.request', () => ours.request<{ uuid: string }>(getCard, params)],
  ['openapi-fetch: client.GET', async () => (await bare.GET('/cards/{uuid}', bareInit)).data?.data],
  [
    'raw: fetch + res.json()',
    async () => {
      const res = await fetchImpl(new Request(`${BASE}/cards/${encodeURIComponent(UUID)}`, { headers: rawHeaders }));
      return ((await res.json()) as { data: { uuid: string } }).data;
    },
  ],
];

// Sanity: every variant returns the card, so no variant is measured doing less.
for (const [name, fn] of variants) {
  if ((await fn())?.uuid !== UUID) throw new Error(`${name} returned the wrong body`);
}

// Interleaved rounds, order rotated (bench/lib.ts `interleaved`): a run of one task after another let the
// verdict flip between two runs (1.128x, then 1.609x), as whichever task ran while the shared machine was busy lost.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 61);
const BATCH_MS = Number(process.env.BENCH_BATCH_MS ?? 40);
let sink: unknown;
const { wall, cpu } = await interleaved(
  variants.map(([name, fn]) => [name, async () => void (sink = await fn())] as const),
  { rounds: ROUNDS, batchMs: BATCH_MS, warmupMs: 500 },
);

console.log(`client overhead, Node ${process.versions.node}, ${ROUNDS} rounds of about ${BATCH_MS} ms per task, order rotated each round; per call: median over rounds (fastest-slowest round)`);
for (const [name] of variants) {
  const c = cpu.get(name)!;
  const w = wall.get(name)!;
  console.log(`${name.padEnd(28)} cpu ${median(c).toFixed(2).padStart(6)} us (${Math.min(...c).toFixed(2)}-${Math.max(...c).toFixed(2)})   wall ${median(w).toFixed(2).padStart(6)} us (${Math.min(...w).toFixed(2)}-${Math.max(...w).toFixed(2)})`);
}
const [oursName, bareName, rawName] = variants.map(([name]) => name) as [string, string, string];
const vsBare = pairedRatio(wall.get(oursName)!, wall.get(bareName)!);
console.log(`ours / openapi-fetch = ${vsBare.text} by wall, ${pairedRatio(cpu.get(oursName)!, cpu.get(bareName)!).text} by CPU (goal <= 1.15x) ${vsBare.median <= 1.15 ? 'OK' : 'OVER'}`);
console.log(`ours / raw fetch     = ${pairedRatio(wall.get(oursName)!, wall.get(rawName)!).text} by wall, ${pairedRatio(cpu.get(oursName)!, cpu.get(rawName)!).text} by CPU`);
void sink;
