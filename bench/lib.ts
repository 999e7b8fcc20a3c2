/** Small helpers shared by the benchmarks: timing with warm-up, medians, ratio lines, the sandbox bench's card and requests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createInterface } from 'node:readline';
import { Worker } from 'node:worker_threads';
import type autocannon from 'autocannon';

export async function sample(fn: () => Promise<unknown> | unknown, runs: number, warmup = 1): Promise<number[]> {
  for (let i = 0; i < warmup; i += 1) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function ratio(ours: number, peer: number): string {
  return `${(ours / peer).toFixed(2)}x`;
}

/**
 * An OpenAPI document with the operations of `doc` replicated `copies` times under distinct paths, operation ids
 * and client resources: the synthetic large spec of bench/generate.ts and bench/diff.ts.
 */
export function replicateOperations(doc: any, copies: number): any {
  const out = structuredClone(doc);
  const paths: Record<string, any> = {};
  for (let i = 0; i < copies; i += 1) {
    for (const [route, item] of Object.entries<any>(doc.paths)) {
      const copy = structuredClone(item);
      for (const method of ['get', 'post']) {
        if (!copy[method]) continue;
        copy[method].operationId = `${copy[method].operationId}${i}`;
        copy[method]['x-client'] = { ...copy[method]['x-client'], resource: `${copy[method]['x-client'].resource ?? 'meta'}${i}` };
      }
      paths[`/r${i}${route}`] = copy;
    }
  }
  out.paths = paths;
  return out;
}

/**
 * A funded sandbox token and an active card, through the HTTP API: deposits into the default workspace, mints a
 * token with every ability, issues a card and polls its order until it completed (an issue names its card only
 * then, D29). For the sandbox benchmark and the profile script, which load the same card.
 */
export async function benchCard(
  running: { baseUrl: string; sandbox: { admin: { deposit(ws: number, input: { amount: string; description: string }): unknown; createToken(ws: number, input: { name: string; abilities: string[] }): { token: string } } } },
  abilities: readonly string[],
): Promise<{ token: string; headers: Record<string, string>; cardUuid: string }> {
  running.sandbox.admin.deposit(1, { amount: '1000000000.00', description: 'bench funding' });
  const token = running.sandbox.admin.createToken(1, { name: 'bench', abilities: [...abilities] }).token;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const issue = { card_product_id: 1, initial_topup_amount: '100000.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' };
  const accepted = (await (await fetch(`${running.baseUrl}/cards`, { method: 'POST', headers, body: JSON.stringify(issue) })).json()) as { data: { uuid: string } };
  for (let i = 0; i < 200; i++) {
    const polled = (await (await fetch(`${running.baseUrl}/orders/${accepted.data.uuid}`, { headers })).json()) as { data: { status: string; related_card_uuid: string | null } };
    if (polled.data.status === 'completed' && polled.data.related_card_uuid !== null) return { token, headers, cardUuid: polled.data.related_card_uuid };
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the bench card was not issued');
}

/** The body of every benchmarked issue, and of a simulated authorization. */
export const BENCH_ISSUE = JSON.stringify({ card_product_id: 1, initial_topup_amount: '10.00', cardholder_first_name: 'Bench', cardholder_last_name: 'Mark' });
export const BENCH_AUTHORIZE = JSON.stringify({ amount: '1.00' });

export type BenchKind = 'get' | 'post' | 'mixed';

/** autocannon requests of a sandbox case; the mixed rotation is 7 reads, 2 issues, 1 authorization per 10 requests. */
export function benchRequests(kind: BenchKind, cardUuid: string): autocannon.Request[] {
  const read = { method: 'GET' as const, path: `/api/v1/cards/${cardUuid}` };
  const issue = {
    method: 'POST' as const,
    path: '/api/v1/cards',
    body: BENCH_ISSUE,
    headers: { 'content-type': 'application/json' },
    // A fresh key per request: each POST is a new issue, not an idempotent replay.
    setupRequest: (request: autocannon.Request) => ({ ...request, headers: { ...request.headers, 'x-idempotency-key': randomUUID() } }),
  };
  const authorize = { method: 'POST' as const, path: `/sandbox/cards/${cardUuid}/authorizations`, body: BENCH_AUTHORIZE, headers: { 'content-type': 'application/json' } };
  if (kind === 'get') return [read];
  if (kind === 'post') return [issue];
  return [read, read, issue, read, read, authorize, read, issue, read, read];
}

/**
 * A worker thread that runs `moduleUrl` (the caller's own file, `import.meta.url`) from its TypeScript source: on
 * Node 20 a worker does not inherit the `--import tsx` hooks for its entry, so it registers tsx, then loads the file.
 */
export function tsxWorker(moduleUrl: string): Worker {
  const boot = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(moduleUrl)}); })`;
  return new Worker(boot, { eval: true });
}

/**
 * A child process that runs `file` (the caller's own, `import.meta.filename`) with `--serve` from its TypeScript
 * sources (the `@card-api/source` condition), and a line protocol with it: `send` writes one command line to its
 * stdin, `answer` reads its next stdout line (and throws if it exited). Its stderr is this process's.
 */
export function sourceChild(file: string): { child: ChildProcess; send: (line: string) => void; answer: () => Promise<string> } {
  const child = spawn(process.execPath, ['--conditions=@card-api/source', '--import', 'tsx', file, '--serve'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  return {
    child,
    send: (line) => child.stdin!.write(`${line}\n`),
    answer: async () => {
      const next = await lines.next();
      if (next.done) throw new Error(`${file} --serve exited`);
      return next.value as string;
    },
  };
}
