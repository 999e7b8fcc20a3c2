/**
 * The gen-card-api CLI as a user runs it (a child process): --out writes a self-contained client that a
 * consumer compiles under node16 and bundler resolution; a new operation in the spec appears on the client;
 * check exits 1 on drift; a bad spec exits non-zero with file, pointer and reason.
 */
import { execFile } from 'node:child_process';
import { cpSync, readFileSync, writeFileSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir, writeSpecCopy } from '../helpers/spec.js';

const run = promisify(execFile);
const BIN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const tmp = tempDir('cli');
afterAll(tmp.cleanup);

async function cli(args: string[], root = ROOT): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [path.join(root, path.relative(ROOT, BIN)), ...args], { cwd: root, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

/**
 * A copy of the checkout's sources (spec, templates, generators, packages without dist) sharing its node_modules:
 * a test may edit a generated file there while other phases and tests read the real checkout.
 */
function checkoutCopy(dir: string): string {
  const skip = new Set(['dist', 'node_modules']);
  for (const entry of ['package.json', 'tsconfig.json', 'tsconfig.base.json', 'redocly.yaml', 'spec', 'templates', 'generators', 'docs', 'scripts', 'packages']) {
    cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true, filter: (source) => !skip.has(path.basename(source)) });
  }
  symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  return dir;
}

function consumer(dir: string, moduleResolution: 'node16' | 'bundler'): void {
  writeFileSync(
    path.join(dir, 'consumer.ts'),
    [
      "import { CardApiClient, CardStatusValues, type AcceptedOrder, type Card } from './card-api/index.js';",
      "const api = new CardApiClient({ token: 'ws_sk_x', baseUrl: 'http://localhost:4010/api/v1' });",
      'export async function flow(): Promise<Card[]> {',
      "  const order: AcceptedOrder = await api.cards.create({ card_product_id: 1, initial_topup_amount: '10.00', cardholder_first_name: 'A', cardholder_last_name: 'B' });",
      '  await api.orders.wait(order.uuid, { intervalMs: 2000 });',
      '  const cards: Card[] = [];',
      '  for await (const card of api.cards.list({ status: [CardStatusValues[1]] })) cards.push(card);',
      '  return cards;',
      '}',
    ].join('\n'),
  );
  writeFileSync(
    path.join(dir, `tsconfig.${moduleResolution}.json`),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        module: moduleResolution === 'node16' ? 'node16' : 'ESNext',
        moduleResolution,
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: [],
      },
      files: ['consumer.ts'],
    }),
  );
}

describe('gen-card-api', () => {
  it('client --out writes a self-contained client that compiles under node16 and bundler', async () => {
    const out = path.join(tmp.dir, 'vendored/card-api');
    const result = await cli(['client', '--out', out, '--timings']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/render client/);
    const index = readFileSync(path.join(out, 'index.ts'), 'utf8');
    expect(index).toContain("export * from './client.gen.js'");
    for (const file of ['index.ts', 'client.gen.ts', 'types.gen.ts', ...readdirSync(path.join(out, 'runtime')).map((f) => `runtime/${f}`)]) {
      expect(readFileSync(path.join(out, file), 'utf8'), file).not.toMatch(/from '@card-api\//);
    }
    const dir = path.dirname(out);
    for (const mode of ['node16', 'bundler'] as const) {
      consumer(dir, mode);
      const tsc = await run(process.execPath, [TSC, '-p', path.join(dir, `tsconfig.${mode}.json`)]).catch((e: { stdout: string }) => e);
      expect('stdout' in tsc ? tsc.stdout : '', `tsc ${mode}`).toBe('');
    }
  });

  it('puts an operation added to the spec on the client', async () => {
    const dir = path.join(tmp.dir, 'added');
    const spec = writeSpecCopy(path.join(tmp.dir), (doc) => {
      doc.paths['/cards/{uuid}/archive'] = {
        parameters: [{ $ref: '#/components/parameters/CardUuid' }],
        post: {
          ...structuredClone(doc.paths['/cards/{uuid}/freeze'].post),
          operationId: 'archiveCard',
          'x-client': { resource: 'cards', method: 'archive' },
          summary: 'Archive a card',
        },
      };
    });
    const result = await cli(['client', '--spec', spec, '--out', dir]);
    expect(result.code, result.stderr).toBe(0);
    const mod = (await import(path.join(dir, 'index.ts'))) as typeof import('../../packages/client/src/index.js');
    const calls: string[] = [];
    const api = new mod.CardApiClient({
      token: 't_sk_x',
      baseUrl: 'http://card.test/api/v1',
      fetch: async (input: RequestInfo | URL, init?: RequestInit) => {
        const req = new Request(input, init);
        calls.push(`${req.method} ${new URL(req.url).pathname} ${req.headers.get('x-idempotency-key') ? 'keyed' : 'unkeyed'}`);
        return new Response(JSON.stringify({ data: { uuid: 'o' } }), { status: 202, headers: { 'content-type': 'application/json' } });
      },
    });
    const archive = (api.cards as unknown as { archive: (uuid: string) => Promise<unknown> }).archive;
    expect(typeof archive).toBe('function');
    await archive.call(api.cards, 'c1');
    expect(calls).toEqual(['POST /api/v1/cards/c1/archive keyed']);
  });

  it('check exits 0 on main and 1 after a generated file is edited', async () => {
    // The edit happens in a copy: the real checkout is read meanwhile (the drift check and the build run beside vitest).
    const root = checkoutCopy(path.join(tmp.dir, 'checkout'));
    expect((await cli(['check'], root)).code).toBe(0);
    const file = path.join(root, 'packages/types/src/index.ts');
    writeFileSync(file, `${readFileSync(file, 'utf8')}export const edited = 1;\n`);
    const drift = await cli(['check'], root);
    expect(drift.code).toBe(1);
    expect(drift.stdout).toContain('changed: packages/types/src/index.ts');
    expect(drift.stdout).toContain('+export const edited = 1;'.replace('+', '-'));
  });

  it('exits 2 with the file, the pointer and the reason on a bad spec', async () => {
    const spec = writeSpecCopy(path.join(tmp.dir), (doc) => delete doc.paths['/wallet'].get['x-client']);
    const result = await cli(['client', '--spec', spec, '--out', path.join(tmp.dir, 'never')]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/openapi\.yaml #\/paths\/~1wallet\/get\/x-client: every operation needs `x-client/);
  });

  it('lint reports 0 errors and 0 warnings on the bundled spec', async () => {
    const result = await cli(['lint']);
    expect(result.code, result.stdout).toBe(0);
    expect(result.stdout).toMatch(/0 errors, 0 warnings/);
  });
});
