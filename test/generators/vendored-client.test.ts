/**
 * The vendored client (`gen-card-api client --out`) compiles where a stranger's project would put it, exactly as
 * its index.ts header promises: the README's example as written plus a spec whose operations answer 201 or 204
 * without a body, under `strict` with TypeScript's default target (module node16), under bundler resolution,
 * under `exactOptionalPropertyTypes`, with Node's types and no DOM, and with the DOM and no Node types; always
 * with `skipLibCheck: false`. Also: generated headers name the spec they came from.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderClient, VENDORED_CLIENT_NOTE } from '../../generators/client/index.js';
import { isGeneratedText } from '../../generators/core/files.js';
import { GENERATED_PREFIX, generatedHeader, type GeneratedFile } from '../../generators/core/target.js';
import { specDisplayName } from '../../generators/model/build.js';
import { loadModel } from '../../generators/model/index.js';
import { ROOT, SPEC_PATH, tempDir, writeSpecCopy } from '../helpers/spec.js';

const run = promisify(execFile);
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const tmp = tempDir('vendored');
afterAll(tmp.cleanup);

/** The first ```ts block of the README's "A typed client for your code" section, verbatim. */
function readmeExample(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.split(/^## /m).find((s) => s.startsWith('A typed client for your code'));
  const block = section && /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('README.md: no ```ts block under "## A typed client for your code"');
  return block;
}

async function vendor(spec: string, out: string): Promise<void> {
  const files: GeneratedFile[] = await renderClient(await loadModel(spec), { typesImport: 'local' }, '.');
  for (const file of files) {
    const full = path.join(out, file.path);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, file.contents);
  }
}

/** A copy of the spec with a 201 without content and a 204 on a new path. */
function bodilessSpec(dir: string): string {
  mkdirSync(dir, { recursive: true });
  return writeSpecCopy(dir, (doc) => {
    doc.paths['/cards/{uuid}/labels'] = {
      parameters: [{ $ref: '#/components/parameters/CardUuid' }],
      post: {
        ...structuredClone(doc.paths['/cards/{uuid}'].get),
        operationId: 'labelCard',
        summary: 'Label a card',
        'x-client': { resource: 'cards', method: 'label' },
        responses: { '201': { description: 'Labelled; no body.' }, '404': doc.paths['/cards/{uuid}'].get.responses['404'] },
      },
      delete: {
        ...structuredClone(doc.paths['/cards/{uuid}'].get),
        operationId: 'unlabelCard',
        summary: 'Remove the labels of a card',
        'x-client': { resource: 'cards', method: 'unlabel' },
        responses: { '204': { description: 'Removed.' }, '404': doc.paths['/cards/{uuid}'].get.responses['404'] },
      },
    };
  });
}

const BODILESS_CONSUMER = [
  "import { CardApiClient, type NoContent, type WithResponse } from './no-body/index.js';",
  "const api = new CardApiClient({ token: 'ws_sk_x', baseUrl: 'http://localhost:4010/api/v1' });",
  'export async function label(uuid: string): Promise<number> {',
  '  const created: WithResponse<NoContent> = await api.cards.label(uuid);',
  '  const removed = await api.cards.unlabel(uuid, { maxRetries: 0 });',
  '  return created.lastResponse.status + removed.lastResponse.status;',
  '}',
  '',
].join('\n');

type Config = Record<string, unknown>;
const NODE16 = { module: 'node16', moduleResolution: 'node16' };
/** Each setting the header promises, with the files it must compile. */
const CONFIGS: Array<[string, Config, string[]]> = [
  ['strict, module node16, default target', { ...NODE16, types: ['node'] }, ['readme.ts', 'bodiless.ts']],
  ['bundler resolution, target ES2022', { module: 'esnext', moduleResolution: 'bundler', target: 'ES2022', types: ['node'] }, ['readme.ts', 'bodiless.ts']],
  ['exactOptionalPropertyTypes', { ...NODE16, exactOptionalPropertyTypes: true, types: ['node'] }, ['readme.ts', 'bodiless.ts']],
  ["Node's types and no DOM (lib ES2022)", { ...NODE16, lib: ['ES2022'], types: ['node'] }, ['readme.ts', 'bodiless.ts']],
  // The README's example reads process.env, which needs @types/node; the client itself does not.
  ['the DOM and no Node types', { ...NODE16, lib: ['ES2022', 'DOM', 'DOM.Iterable'], types: [] }, ['card-api/index.ts', 'bodiless.ts']],
];

let bodilessFile = '';

beforeAll(async () => {
  writeFileSync(path.join(tmp.dir, 'package.json'), JSON.stringify({ name: 'stranger', private: true, type: 'module' }));
  writeFileSync(path.join(tmp.dir, 'readme.ts'), readmeExample());
  writeFileSync(path.join(tmp.dir, 'bodiless.ts'), BODILESS_CONSUMER);
  bodilessFile = bodilessSpec(path.join(tmp.dir, 'spec'));
  await vendor(SPEC_PATH, path.join(tmp.dir, 'card-api'));
  await vendor(bodilessFile, path.join(tmp.dir, 'no-body'));
});

describe('the vendored client', () => {
  it.each(CONFIGS)('compiles under %s with skipLibCheck false', async (name, options, files) => {
    const file = path.join(tmp.dir, `tsconfig.${name.replace(/[^a-z0-9]+/gi, '-')}.json`);
    writeFileSync(file, JSON.stringify({ compilerOptions: { strict: true, noEmit: true, skipLibCheck: false, ...options }, files }));
    const result = await run(process.execPath, [TSC, '-p', file]).then(
      () => '',
      (e: { stdout: string; stderr: string }) => `${e.stdout}${e.stderr}`,
    );
    expect(result, name).toBe('');
  });

  it('says in its index.ts header what it needs', () => {
    const index = readFileSync(path.join(tmp.dir, 'card-api/index.ts'), 'utf8');
    expect(index.startsWith(`${generatedHeader('spec/openapi.yaml')}\n\n${VENDORED_CLIENT_NOTE}\n`)).toBe(true);
    expect(VENDORED_CLIENT_NOTE).toMatch(/openapi-fetch/);
    expect(VENDORED_CLIENT_NOTE).toMatch(/target` ES2022/);
    expect(VENDORED_CLIENT_NOTE).toMatch(/@types\/node/);
  });

  it('resolves a 201 or 204 without a body with lastResponse only', async () => {
    const mod = (await import(path.join(tmp.dir, 'no-body/index.ts'))) as {
      CardApiClient: new (o: object) => { cards: Record<string, (uuid: string) => Promise<object & { lastResponse: { status: number } }>> };
    };
    const seen: string[] = [];
    const api = new mod.CardApiClient({
      token: 'ws_sk_x',
      baseUrl: 'http://card.test/api/v1',
      fetch: async (req: Request) => {
        seen.push(`${req.method} ${new URL(req.url).pathname}`);
        return new Response(null, { status: req.method === 'POST' ? 201 : 204 });
      },
    });
    const created = await api.cards['label']!('c1');
    const removed = await api.cards['unlabel']!('c1');
    expect(seen).toEqual(['POST /api/v1/cards/c1/labels', 'DELETE /api/v1/cards/c1/labels']);
    expect([created.lastResponse.status, removed.lastResponse.status]).toEqual([201, 204]);
    expect(JSON.stringify(created)).toBe('{}');
    const generated = readFileSync(path.join(tmp.dir, 'no-body/client.gen.ts'), 'utf8');
    expect(generated).toContain('label(uuid: string, options?: RequestOptions): Promise<WithResponse<NoContent>>');
  });
});

describe('generated headers name the spec they came from', () => {
  it('the bundled spec as spec/openapi.yaml, a spec inside the toolkit by its path from the root', () => {
    const bodiless = readFileSync(path.join(tmp.dir, 'no-body/client.gen.ts'), 'utf8');
    const name = path.relative(ROOT, bodilessFile).split(path.sep).join('/');
    expect(name).toMatch(/^\.tmp\/vendored-[^/]+\/spec\/openapi\.yaml$/);
    expect(bodiless.split('\n')[0]).toBe(generatedHeader(name));
    for (const file of ['no-body/index.ts', 'no-body/types.gen.ts']) {
      expect(readFileSync(path.join(tmp.dir, file), 'utf8').split('\n')[0], file).toBe(generatedHeader(name));
    }
    expect(readFileSync(path.join(tmp.dir, 'card-api/client.gen.ts'), 'utf8').split('\n')[0]).toBe(generatedHeader('spec/openapi.yaml'));
  });

  it('a spec outside the toolkit by its path from the working directory, never an absolute path', () => {
    const outside = path.resolve(ROOT, '..', 'elsewhere', 'api', 'openapi.yaml');
    expect(specDisplayName(outside, path.resolve(ROOT, '..', 'elsewhere'))).toBe('api/openapi.yaml');
    expect(specDisplayName(outside, path.resolve(ROOT, '..', 'other'))).toBe('../elsewhere/api/openapi.yaml');
    expect(specDisplayName(SPEC_PATH, path.resolve(ROOT, '..', 'other'))).toBe('spec/openapi.yaml');
    expect(specDisplayName(path.resolve(ROOT, '..', 'x\ny.yaml'), path.resolve(ROOT, '..'))).toBe('x y.yaml');
  });

  it('check and all still recognise every such file as generated', () => {
    for (const name of ['spec/openapi.yaml', '../elsewhere/api/openapi.yaml', 'openapi.json']) {
      expect(generatedHeader(name).startsWith(GENERATED_PREFIX)).toBe(true);
      expect(isGeneratedText(`${generatedHeader(name)}\nexport {};\n`)).toBe(true);
    }
  });
});
