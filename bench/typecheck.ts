/**
 * Type-check cost for a consumer that calls every operation: through our generated client vs the same
 * calls through bare openapi-fetch over the same openapi-typescript `paths`. `tsc --extendedDiagnostics`
 * instantiation counts and check time, in one run (check time: the median of BENCH_ROUNDS runs each, default 5, the
 * order alternating).
 * Run: node --import tsx bench/typecheck.ts
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(import.meta.dirname, '..');
const DIR = path.join(ROOT, 'bench/.out/typecheck');
mkdirSync(DIR, { recursive: true });
const U = "'3f6c1a52-8d4e-4b7a-9c21-5e0f7d2b9a14'";
const BODY = "{ card_product_id: 1, initial_topup_amount: '10.00', cardholder_first_name: 'A', cardholder_last_name: 'B' }";

const ours = `import { CardApiClient } from './dist/client/src/index.js';
const api = new CardApiClient({ token: 't_sk_x', baseUrl: 'http://localhost:4010/api/v1' });
export async function all() {
  const a = await api.ping();
  const b = await api.cardProducts.list();
  const c = await api.cards.list({ status: ['active'] });
  const d = await api.cards.create(${BODY});
  const e = await api.cards.get(${U});
  const f = await api.cards.listConsumptionBills(${U}, { page: 1 });
  const g = await api.cards.listTransactions(${U}, { type: 'capture' });
  const h = await api.cards.topup(${U}, { amount: '5.00' });
  const i = await api.cards.freeze(${U}, { reason: null });
  const j = await api.cards.unfreeze(${U});
  const k = await api.cards.close(${U});
  const l = await api.orders.list({ status: 'completed' });
  const m = await api.orders.get(${U});
  const n = await api.wallet.get();
  const o = await api.ledger.list({ reason: 'card_spend' });
  // @ts-expect-error proves the result types are real, not any
  const wrong: number = m.status;
  return [wrong, a.workspace_slug, b[0]?.id, c.data[0]?.uuid, d.uuid, e.held_amount, f.data[0]?.kind, g.data[0]?.type, h.uuid, i.uuid, j.uuid, k.uuid, l.data[0]?.uuid, m.status, n.wallets[0]?.balance, o.data[0]?.amount];
}
`;
const bare = `import createClient from 'openapi-fetch';
import type { paths } from '../../../packages/types/src/index.js';
const api = createClient<paths>({ baseUrl: 'http://localhost:4010/api/v1', headers: { Authorization: 'Bearer t_sk_x' } });
const p = { params: { path: { uuid: ${U} } } } as const;
export async function all() {
  const a = await api.GET('/ping');
  const b = await api.GET('/card-products');
  const c = await api.GET('/cards', { params: { query: { status: ['active'] } } });
  const d = await api.POST('/cards', { body: ${BODY} });
  const e = await api.GET('/cards/{uuid}', p);
  const f = await api.GET('/cards/{uuid}/consumption-bills', { params: { path: { uuid: ${U} }, query: { page: 1 } } });
  const g = await api.GET('/cards/{uuid}/transactions', { params: { path: { uuid: ${U} }, query: { type: 'capture' } } });
  const h = await api.POST('/cards/{uuid}/topup', { params: { path: { uuid: ${U} } }, body: { amount: '5.00' } });
  const i = await api.POST('/cards/{uuid}/freeze', { params: { path: { uuid: ${U} } }, body: { reason: null } });
  const j = await api.POST('/cards/{uuid}/unfreeze', p);
  const k = await api.POST('/cards/{uuid}/close', p);
  const l = await api.GET('/orders', { params: { query: { status: 'completed' } } });
  const m = await api.GET('/orders/{uuid}', p);
  const n = await api.GET('/wallet');
  const o = await api.GET('/transactions', { params: { query: { reason: 'card_spend' } } });
  // @ts-expect-error proves the result types are real, not any
  const wrong: number = m.data?.data.status;
  return [wrong, a.data?.data.workspace_slug, b.data?.data[0]?.id, c.data?.data[0]?.uuid, d.data?.data.uuid, e.data?.data.held_amount, f.data?.data[0]?.kind, g.data?.data[0]?.type, h.data?.data.uuid, i.data?.data.uuid, j.data?.data.uuid, k.data?.data.uuid, l.data?.data[0]?.uuid, m.data?.data.status, n.data?.data.wallets[0]?.balance, o.data?.data[0]?.amount];
}
`;

/** Emits the client's and types' declarations, as the published packages ship them (consumers read .d.ts). */
function emitDeclarations(): void {
  writeFileSync(
    path.join(DIR, 'tsconfig.dts.json'),
    JSON.stringify({
      extends: '../../../tsconfig.base.json',
      compilerOptions: { declaration: true, emitDeclarationOnly: true, noEmit: false, outDir: 'dist', rootDir: '../../../packages', skipLibCheck: true, types: [], paths: { '@card-api/types': ['../../../packages/types/src/index.ts'] } },
      files: ['../../../packages/client/src/index.ts'],
    }),
  );
  execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(DIR, 'tsconfig.dts.json')], { encoding: 'utf8' });
}

function measure(name: string, source: string): { instantiations: number; types: number; checkMs: number } {
  writeFileSync(path.join(DIR, `${name}.ts`), source);
  writeFileSync(
    path.join(DIR, `tsconfig.${name}.json`),
    JSON.stringify({ extends: '../../../tsconfig.base.json', compilerOptions: { noEmit: true, skipLibCheck: true, types: [] }, files: [`${name}.ts`] }),
  );
  let out = '';
  try {
    out = execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', path.join(DIR, `tsconfig.${name}.json`), '--extendedDiagnostics'], { encoding: 'utf8' });
  } catch (error) {
    throw new Error(`${name} does not compile:\n${(error as { stdout: string }).stdout}`);
  }
  const num = (label: string) => Number(new RegExp(`${label}:\\s+([\\d.]+)`).exec(out)?.[1] ?? NaN);
  return { instantiations: num('Instantiations'), types: num('Types'), checkMs: num('Check time') * 1000 };
}

emitDeclarations();
// Instantiation and type counts are the same on every run; check time is a timing: rounds with the order alternating.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const runs: Record<'ours' | 'bare', Array<ReturnType<typeof measure>>> = { ours: [], bare: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const name of round % 2 === 0 ? (['ours', 'bare'] as const) : (['bare', 'ours'] as const)) runs[name].push(measure(name, name === 'ours' ? ours : bare));
}
const med = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
const a = { ...runs.ours[0]!, checkMs: med(runs.ours.map((r) => r.checkMs)) };
const b = { ...runs.bare[0]!, checkMs: med(runs.bare.map((r) => r.checkMs)) };
const perRound = runs.ours.map((r, i) => r.checkMs / runs.bare[i]!.checkMs);
console.log(`type-check cost of a consumer calling all 15 operations (tsc ${execFileSync(process.execPath, [path.join(ROOT, 'node_modules/typescript/bin/tsc'), '-v'], { encoding: 'utf8' }).trim()})`);
console.log(`${''.padEnd(28)} ${'instantiations'.padStart(15)} ${'types'.padStart(8)} ${'check time'.padStart(11)}`);
console.log(`${'ours (generated client)'.padEnd(28)} ${String(a.instantiations).padStart(15)} ${String(a.types).padStart(8)} ${`${a.checkMs.toFixed(0)} ms`.padStart(11)}`);
console.log(`${'bare openapi-fetch'.padEnd(28)} ${String(b.instantiations).padStart(15)} ${String(b.types).padStart(8)} ${`${b.checkMs.toFixed(0)} ms`.padStart(11)}`);
console.log(`ours / openapi-fetch: instantiations ${(a.instantiations / b.instantiations).toFixed(2)}x, types ${(a.types / b.types).toFixed(2)}x, check time ${(a.checkMs / b.checkMs).toFixed(2)}x (median of ${ROUNDS} runs each, order alternating; per round ${Math.min(...perRound).toFixed(2)}-${Math.max(...perRound).toFixed(2)})`);
