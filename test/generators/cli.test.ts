/**
 * The gen-card-api CLI as a user runs it (a child process): --out writes a self-contained client that a
 * consumer compiles under node16 and bundler resolution; a new operation in the spec appears on the client;
 * check exits 1 on drift; a bad spec exits non-zero with file, pointer and reason.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, lstatSync, mkdirSync, readFileSync, readlinkSync, writeFileSync, readdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { MANIFEST, OutputRefused, writeFiles } from '../../generators/core/files.js';
import { generatedHeader, type GeneratedFile } from '../../generators/core/target.js';
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

/**
 * Issue 31: generated output never replaces a file it did not write. One writer (generators/core/files.ts) serves
 * every target and `--out`: a file without the generated header is refused unless `--force`, a symlink anywhere from
 * the output folder down is refused always, and stale files go only when the previous run's manifest lists them
 * unchanged.
 */
describe('the output writer', () => {
  /** Every entry under `dir`: a file's text, a symlink's target, a folder. */
  function snapshot(dir: string): Record<string, string> {
    const out: Record<string, string> = {};
    const walk = (at: string): void => {
      for (const name of readdirSync(at)) {
        const full = path.join(at, name);
        const rel = path.relative(dir, full);
        const info = lstatSync(full);
        if (info.isSymbolicLink()) out[rel] = `-> ${readlinkSync(full)}`;
        else if (info.isDirectory()) {
          out[rel] = 'dir';
          walk(full);
        } else out[rel] = readFileSync(full, 'utf8');
      }
    };
    walk(dir);
    return out;
  }

  it('client --out over a folder holding the user\'s own index.ts refuses (exit 2, naming it and --force) and writes nothing', async () => {
    const out = path.join(tmp.dir, 'users-src');
    mkdirSync(out, { recursive: true });
    writeFileSync(path.join(out, 'index.ts'), 'export const mine = 1;\n');
    const refused = await cli(['client', '--out', out]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(`${path.join(out, 'index.ts')} exists and was not written by gen-card-api (it has no generated header); --force replaces it`);
    expect(snapshot(out)).toEqual({ 'index.ts': 'export const mine = 1;\n' });
    const forced = await cli(['client', '--out', out, '--force']);
    expect(forced.code, forced.stderr).toBe(0);
    expect(readFileSync(path.join(out, 'index.ts'), 'utf8')).toMatch(/^\/\/ Generated by gen-card-api from /);
    const written = /^wrote (\d+) files to /m.exec(forced.stdout)?.[1];
    expect(written, forced.stdout).toBeDefined();
    // Re-running into the folder it wrote needs no flag, and rewrites nothing of what the forced run wrote.
    const again = await cli(['client', '--out', out]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(new RegExp(`^wrote 0 files to \\S+ \\(${written} unchanged\\)$`, 'm'));
  });

  it('types --out never writes through a symlink: not a file, not a subfolder, not the folder itself, even with --force', async () => {
    const victim = path.join(tmp.dir, 'victim.txt');
    writeFileSync(victim, 'precious\n');
    const linkedFile = path.join(tmp.dir, 'linked-file');
    mkdirSync(linkedFile);
    symlinkSync(victim, path.join(linkedFile, 'index.ts'));
    const outside = path.join(tmp.dir, 'outside-folder');
    mkdirSync(outside);
    const linkedFolder = path.join(tmp.dir, 'linked-folder');
    symlinkSync(outside, linkedFolder);
    const linkedSub = path.join(tmp.dir, 'linked-sub');
    mkdirSync(linkedSub);
    symlinkSync(outside, path.join(linkedSub, 'runtime'));
    const runs = await Promise.all([
      cli(['types', '--out', linkedFile]),
      cli(['types', '--out', linkedFile, '--force']),
      cli(['types', '--out', linkedFolder]),
      cli(['client', '--out', linkedSub, '--force']),
    ]);
    for (const run of runs) {
      expect(run.code, run.stdout).toBe(2);
      expect(run.stderr).toMatch(/is a symlink: generated output is never written through one/);
    }
    expect(readFileSync(victim, 'utf8')).toBe('precious\n');
    expect(readdirSync(outside)).toEqual([]);
    expect(Object.keys(snapshot(linkedFile))).toEqual(['index.ts']);
    expect(Object.keys(snapshot(linkedSub))).toEqual(['runtime']);
  });

  it('all --out keeps another spec\'s generated file and a file it wrote that was edited since; removes what the manifest lists unchanged', async () => {
    const out = path.join(tmp.dir, 'all-out');
    expect((await cli(['all', '--out', out])).code).toBe(0);
    const src = path.join(out, 'packages/client/src');
    const manifest = path.join(src, 'gen-card-api.manifest');
    // A file of another spec, and two files this run "wrote" before (listed in the manifest), one edited since.
    writeFileSync(path.join(src, 'other.gen.ts'), '// Generated by gen-card-api from other.yaml. Do not edit: change the spec or generators/ and run the generator.\nexport {};\n');
    const stale = '// Generated by gen-card-api from spec/openapi.yaml. Do not edit.\nexport const stale = 1;\n';
    writeFileSync(path.join(src, 'stale.gen.ts'), stale);
    writeFileSync(path.join(src, 'edited.gen.ts'), `${stale}// edited\n`);
    const hash = createHash('sha256').update(stale).digest('hex');
    writeFileSync(manifest, `${readFileSync(manifest, 'utf8')}${hash}  stale.gen.ts\n${hash}  edited.gen.ts\n${hash}  ../../../../victim.txt\n`);
    const again = await cli(['all', '--out', out]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('removed packages/client/src/stale.gen.ts');
    expect(again.stdout).toContain('kept packages/client/src/edited.gen.ts');
    expect(existsSync(path.join(src, 'stale.gen.ts'))).toBe(false);
    expect(existsSync(path.join(src, 'edited.gen.ts'))).toBe(true);
    expect(existsSync(path.join(src, 'other.gen.ts'))).toBe(true);
    // The manifest is rewritten to what this run wrote: deterministic, sorted, hashes of the files as written.
    const lines = readFileSync(manifest, 'utf8').trimEnd().split('\n');
    expect(lines[0]).toMatch(/^\/\/ Generated by gen-card-api from spec\/openapi\.yaml\. /);
    const entries = lines.slice(1).map((l) => l.split('  ')[1]!);
    expect(entries).toEqual([...entries].sort());
    for (const line of lines.slice(1)) {
      const [sum, rel] = line.split('  ') as [string, string];
      expect(createHash('sha256').update(readFileSync(path.join(src, rel))).digest('hex'), rel).toBe(sum);
    }
  });

  /** Arbitrary files already in the output folder: refused untouched, or written with every other file left alone. */
  it('fast-check: arbitrary pre-existing files, symlinks and manifests in the output folder', async () => {
    const SPEC = 'spec.yaml';
    const generated: GeneratedFile[] = ['index.ts', 'a.gen.ts', 'sub/b.gen.ts', 'sub/deep/c.ts'].map((p, i) => ({ path: p, contents: `${generatedHeader(SPEC)}\nexport const v${i} = ${i};\n` }));
    const extras = ['user.ts', 'sub/mine.ts', 'old.gen.ts', 'sub/old.gen.ts'];
    const kind = fc.constantFrom('ours', 'other-spec', 'user', 'symlink', 'absent');
    const text = fc.string({ maxLength: 40 }).filter((t) => !t.startsWith('//'));
    const scenario = fc.record({
      files: fc.tuple(...[...generated.map((f) => f.path), ...extras].map(() => fc.tuple(kind, text))),
      manifest: fc.constantFrom('none', 'ours', 'other-spec', 'user'),
      listed: fc.subarray(extras),
      rightHash: fc.boolean(),
    });
    let n = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async ({ files, manifest, listed, rightHash }) => {
        const root = path.join(tmp.dir, `writer-${(n += 1)}`);
        const victim = path.join(tmp.dir, `writer-victim-${n}`);
        writeFileSync(victim, 'precious');
        mkdirSync(root, { recursive: true });
        const paths = [...generated.map((f) => f.path), ...extras];
        const contents = new Map<string, string>();
        for (const [i, [k, body]] of files.entries()) {
          const rel = paths[i]!;
          const full = path.join(root, rel);
          mkdirSync(path.dirname(full), { recursive: true });
          if (k === 'absent') continue;
          if (k === 'symlink') symlinkSync(victim, full);
          else {
            const textOf = k === 'ours' ? `${generatedHeader(SPEC)}\n${body}` : k === 'other-spec' ? `${generatedHeader('other.yaml')}\n${body}` : body;
            writeFileSync(full, textOf);
            contents.set(rel, textOf);
          }
        }
        if (manifest !== 'none') {
          const hashOf = (rel: string) => createHash('sha256').update(rightHash ? (contents.get(rel) ?? '') : 'x').digest('hex');
          const header = manifest === 'ours' ? generatedHeader(SPEC) : manifest === 'other-spec' ? generatedHeader('other.yaml') : 'my notes';
          writeFileSync(path.join(root, MANIFEST), `${header}\n${listed.map((rel) => `${hashOf(rel)}  ${rel}`).join('\n')}\n`);
        }
        const before = snapshot(root);
        const blocking = [...files.entries()].filter(([i, [k]]) => i < generated.length && (k === 'user' || k === 'symlink')).length > 0 || manifest === 'user';
        const result = await writeFiles(root, generated, [{ dir: '.', spec: SPEC }]).catch((error: unknown) => error);
        expect(readFileSync(victim, 'utf8')).toBe('precious');
        if (blocking) {
          expect(result).toBeInstanceOf(OutputRefused);
          expect(snapshot(root)).toEqual(before);
          return;
        }
        if (result instanceof Error) throw result;
        const after = snapshot(root);
        for (const file of generated) expect(after[file.path]).toBe(file.contents);
        for (const [i, [k]] of files.entries()) {
          const rel = paths[i]!;
          if (i < generated.length || k === 'absent') continue;
          const removable = manifest === 'ours' && rightHash && listed.includes(rel) && k !== 'symlink';
          if (removable) expect(after[rel], rel).toBeUndefined();
          else expect(after[rel], rel).toBe(before[rel]);
        }
      }),
      { numRuns: 60 },
    );
  });
});
