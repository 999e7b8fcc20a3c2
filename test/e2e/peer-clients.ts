/**
 * Clients that other generators make from `spec/openapi.yaml`, driven unmodified against the real sandbox (issue
 * 24): each test file generates its client into a temporary folder at test time (a few seconds), imports it as
 * generated, and runs {@link runPeerFlow} through a thin adapter that only maps the flow's steps to the generated
 * functions' signatures. What each request carried on the wire is recorded from `fetch`, so the flow can prove it
 * sent what such clients really send (a JSON content type and no body on freeze, unfreeze and close).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { expect } from 'vitest';
import { ROOT } from '../helpers/spec.js';
import { WAIT_MS } from '../helpers/limits.js';

/** The spec the peers generate from: the one file a user of the contract would hand them. */
export const SPEC = path.join(ROOT, 'spec/openapi.yaml');

/** A temporary folder for one generated client; `remove` deletes it. */
export function outputFolder(name: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(path.join(tmpdir(), `card-api-peer-${name}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Runs an installed generator's command line as a user would (`node <its bin> <args>`), in `cwd`. Rejects with
 * its output when it exits non-zero or takes longer than `timeoutMs`.
 */
export function runGenerator(bin: string, args: readonly string[], cwd: string, timeoutMs = WAIT_MS): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(ROOT, 'node_modules', bin), ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', CI: 'true' } });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(output);
      else reject(new Error(`${bin} ${args.join(' ')} exited ${code ?? signal}:\n${output}`));
    });
  });
}

/**
 * Type errors of generated files compiled as a user's project would: strict, `nodenext`, ES2022 with the DOM
 * library for `fetch`. One line per error, `file:line: message`; empty when they compile.
 */
export function compileErrors(files: readonly string[]): string[] {
  const program = ts.createProgram(files, {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ['lib.es2022.d.ts', 'lib.dom.d.ts', 'lib.dom.iterable.d.ts'],
    types: [],
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${path.basename(d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : '';
    return `${where}${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}

/** One request as it went out, and its answer's status. */
export interface SentRequest {
  method: string;
  path: string;
  contentType: string | null;
  /** Bytes of the request body (0 when there was none). */
  bodyBytes: number;
  status: number;
}

/** A `fetch` that records every request it sends (for a client that takes one, or to stand in for the global). */
export function recordingFetch(sent: SentRequest[], inner: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const body = request.body === null ? 0 : (await request.clone().arrayBuffer()).byteLength;
    const response = await inner(request);
    sent.push({ method: request.method, path: new URL(request.url).pathname, contentType: request.headers.get('content-type'), bodyBytes: body, status: response.status });
    return response;
  };
}

/** The answer of one call, as each adapter reduces its client's result to it. */
export interface PeerAnswer {
  status: number;
  /** The parsed JSON body. */
  body: any;
}

/**
 * The flow's steps over one generated client. Each maps to one generated function, called as that client's own
 * documentation shows; writes pass their `X-Idempotency-Key` as a header and send no body where the step says so.
 */
export interface PeerApi {
  listCardProducts(): Promise<PeerAnswer>;
  createCard(body: Record<string, unknown>, key: string): Promise<PeerAnswer>;
  getOrder(uuid: string): Promise<PeerAnswer>;
  listCards(): Promise<PeerAnswer>;
  getCard(uuid: string): Promise<PeerAnswer>;
  topupCard(uuid: string, body: Record<string, unknown>, key: string): Promise<PeerAnswer>;
  /** No body at all: the optional body left out, as `freezeCard(uuid)` is called. */
  freezeCard(uuid: string, key: string): Promise<PeerAnswer>;
  unfreezeCard(uuid: string, key: string): Promise<PeerAnswer>;
  closeCard(uuid: string, key: string): Promise<PeerAnswer>;
}

/** Polls an order until it ends; the sandbox's orders take a few milliseconds. */
async function completed(api: PeerApi, uuid: string): Promise<any> {
  for (let attempt = 0; attempt < 2000; attempt++) {
    const answer = await api.getOrder(uuid);
    expect(answer.status).toBe(200);
    const order = answer.body.data;
    if (order.status === 'completed' || order.status === 'failed') {
      expect(order, `order ${uuid}`).toMatchObject({ status: 'completed', failure_reason: null });
      return order;
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`order ${uuid} did not end`);
}

/**
 * The whole flow: issue a card, wait for its order, find it in the card list, top up, freeze and unfreeze with no
 * body, close with no body; every write a 202 with its own key, every order completed, the card's status and
 * balance as the contract says. `sent` is what went over the wire.
 */
export async function runPeerFlow(api: PeerApi, sent: SentRequest[], run: string): Promise<void> {
  const products = await api.listCardProducts();
  expect(products.status).toBe(200);
  const product = products.body.data.find((p: { id: number }) => p.id === 1);
  expect(product).toMatchObject({ currency: 'USD', supports_custom_holder_name: true });

  const issued = await api.createCard({ card_product_id: 1, initial_topup_amount: '100.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' }, `${run}-issue`);
  expect(issued.status).toBe(202);
  expect(issued.body.data).toMatchObject({ type: 'issue_card', status: 'pending', held_amount: '105.00', currency: 'USD' });
  const issue = await completed(api, issued.body.data.uuid);
  const cardUuid: string = issue.related_card_uuid;
  expect(cardUuid).toMatch(/^[0-9a-f-]{36}$/);

  const cards = await api.listCards();
  expect(cards.status).toBe(200);
  expect(cards.body.data.map((c: { uuid: string }) => c.uuid)).toContain(cardUuid);
  expect(cards.body.meta).toMatchObject({ current_page: 1 });

  const topup = await api.topupCard(cardUuid, { amount: '50.00' }, `${run}-topup`);
  expect(topup.status).toBe(202);
  expect(topup.body.data).toMatchObject({ type: 'topup_card', related_card_uuid: cardUuid });
  await completed(api, topup.body.data.uuid);
  expect((await api.getCard(cardUuid)).body.data).toMatchObject({ status: 'active', card_balance: '150.00' });

  const steps: Array<[string, (uuid: string, key: string) => Promise<PeerAnswer>, string, string]> = [
    ['freeze', (u, k) => api.freezeCard(u, k), 'freeze', 'frozen'],
    ['unfreeze', (u, k) => api.unfreezeCard(u, k), 'unfreeze', 'active'],
    ['close', (u, k) => api.closeCard(u, k), 'close_card', 'pending_close'],
  ];
  for (const [name, call, type, status] of steps) {
    const answer = await call(cardUuid, `${run}-${name}`);
    expect(answer.status, `${name}: ${JSON.stringify(answer.body)}`).toBe(202);
    expect(answer.body.data).toMatchObject({ type, related_card_uuid: cardUuid, held_amount: '0.00' });
    await completed(api, answer.body.data.uuid);
    expect((await api.getCard(cardUuid)).body.data.status).toBe(status);
  }

  // What the client sent for the three actions: the optional body left out, whatever its content type.
  const actions = sent.filter((r) => r.method === 'POST' && /\/(freeze|unfreeze|close)$/.test(r.path));
  expect(actions.map((r) => [r.path.split('/').at(-1), r.bodyBytes, r.status])).toEqual([
    ['freeze', 0, 202],
    ['unfreeze', 0, 202],
    ['close', 0, 202],
  ]);
  expect(sent.filter((r) => r.status >= 400)).toEqual([]);
}
