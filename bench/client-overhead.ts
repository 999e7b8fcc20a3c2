/**
 * Per-call overhead of the client runtime (templates/client) for a GET like /cards/{uuid},
 * against bare openapi-fetch and against raw fetch + res.json(), all over the same in-process
 * fetch that answers a fixed JSON body, so only client-side work is measured.
 *
 * Run: node --import tsx bench/client-overhead.ts
 * Goal: ours / openapi-fetch <= 1.15.
 */
import createClient from 'openapi-fetch';
import { Bench } from 'tinybench';
import { ClientCore, type OperationDescriptor } from '../templates/client/index.js';

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

const TIME_MS = 2000;
let sink: unknown;
const bench = new Bench({ time: TIME_MS, warmupTime: 500 });
for (const [name, fn] of variants) {
  bench.add(name, async () => {
    sink = await fn();
  });
}

await bench.run();

// Medians, not means: a GC pause lands on whichever task happens to run, and one pause moves a
// mean by more than the differences measured here.
const rows = bench.tasks.map((t) => {
  const r = t.result;
  if (r.state !== 'completed') throw new Error(`${t.name}: ${r.state}`);
  return { name: t.name, opsPerSec: r.throughput.mean, p50Us: r.latency.p50 * 1000, p99Us: r.latency.p99 * 1000, rme: r.throughput.rme };
});
const [a, b, c] = rows as [(typeof rows)[0], (typeof rows)[0], (typeof rows)[0]];
console.log(`client overhead, Node ${process.versions.node}, one run (${TIME_MS} ms per task)`);
for (const r of rows) {
  console.log(
    `${r.name.padEnd(28)} ${Math.round(r.opsPerSec).toLocaleString('en-US').padStart(9)} ops/s ±${r.rme.toFixed(2).padStart(5)}%  p50 ${r.p50Us.toFixed(2).padStart(6)} us  p99 ${r.p99Us.toFixed(2).padStart(7)} us`,
  );
}
const ratioBare = a.p50Us / b.p50Us;
console.log(
  `ours / openapi-fetch = ${ratioBare.toFixed(3)}x by p50 latency, ${(b.opsPerSec / a.opsPerSec).toFixed(3)}x by throughput (goal <= 1.15x) ${ratioBare <= 1.15 ? 'OK' : 'OVER'}`,
);
console.log(`ours / raw fetch     = ${(a.p50Us / c.p50Us).toFixed(3)}x by p50 latency, ${(c.opsPerSec / a.opsPerSec).toFixed(3)}x by throughput`);
void sink;
