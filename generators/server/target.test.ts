import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { GENERATED_HEADER } from '../core/target.js';
import { DEFAULT_SPEC, REPO_ROOT } from '../lint/lint-spec.js';
import { loadModel } from '../model/index.js';
import { SCAFFOLD_HEADER, scaffoldHandlers, serverTarget, writeScaffold } from './index.js';

const model = await loadModel(DEFAULT_SPEC);

describe('serverTarget', () => {
  it('renders the same bytes twice', async () => {
    const first = await serverTarget.render(model, { typesImport: 'package' });
    const second = await serverTarget.render(model, { typesImport: 'package' });
    expect(second).toEqual(first);
  });

  it('renders a marked, LF-only file set under packages/server/src', async () => {
    const files = await serverTarget.render(model, { typesImport: 'package' });
    expect(files.map((f) => f.path).filter((p) => !p.includes('/runtime/'))).toEqual([
      'packages/server/src/handlers.gen.ts',
      'packages/server/src/index.ts',
      'packages/server/src/plugin.gen.ts',
      'packages/server/src/routes.gen.ts',
      'packages/server/src/spec.gen.ts',
    ]);
    expect(files.some((f) => f.path === 'packages/server/src/runtime/plugin.ts')).toBe(true);
    for (const file of files) {
      expect(file.contents.includes('\r'), file.path).toBe(false);
      if (!file.path.includes('/runtime/')) expect(file.contents.split('\n')[0], file.path).toBe(GENERATED_HEADER);
    }
  });

  it('matches the committed output (run `node --import tsx generators/server/generate.ts` after a change)', async () => {
    for (const file of await serverTarget.render(model, { typesImport: 'package' })) {
      expect(await readFile(path.join(REPO_ROOT, file.path), 'utf8'), file.path).toBe(file.contents);
    }
  });

  it('puts every operation in the route table and the handler interface, with its abilities from the spec', async () => {
    const files = await serverTarget.render(model, { typesImport: 'package' });
    const routes = files.find((f) => f.path.endsWith('routes.gen.ts'))!.contents;
    const handlers = files.find((f) => f.path.endsWith('handlers.gen.ts'))!.contents;
    for (const op of model.operations) {
      expect(routes).toContain(`operationId: '${op.operationId}'`);
      expect(handlers).toContain(`${op.operationId}: OperationHandler<operations['${op.operationId}'], ${op.success.status}, Auth>;`);
    }
    expect(routes).toMatch(/operationId: 'listCardProducts',[^}]*abilities: \[\['cards.read'\], \['cards.write'\]\]/);
    expect(routes).toMatch(/operationId: 'ping',[^}]*abilities: \[\[\]\]/);
    expect(routes).toMatch(/operationId: 'listCards',[^}]*commaSeparatedQuery: \['status'\]/);
    expect(handlers).toContain("'card.not_found': true;");
  });

  it('vendors the types beside the package in local mode', async () => {
    const files = await serverTarget.render(model, { typesImport: 'local' });
    expect(files.find((f) => f.path.endsWith('handlers.gen.ts'))!.contents).toContain("from './types.gen.js'");
    expect(files.some((f) => f.path === 'packages/server/src/types.gen.ts')).toBe(true);
  });
});

describe('scaffold', () => {
  it('renders one typed, not-implemented handler per operation and an index', () => {
    const files = scaffoldHandlers(model, 'src/handlers/');
    expect(files).toHaveLength(model.operations.length + 1);
    const getCard = files.find((f) => f.path === 'src/handlers/getCard.ts')!.contents;
    expect(getCard.split('\n')[0]).toBe(SCAFFOLD_HEADER);
    expect(getCard).toContain("export const getCard: CardApiHandlers['getCard'] = async (_input) => {");
    expect(getCard).toContain("throw new ApiError(501, 'api.not_implemented', 'getCard is not implemented yet.');");
    expect(getCard).toContain('The input carries `params`, `auth`.');
    const index = files.find((f) => f.path === 'src/handlers/index.ts')!.contents;
    expect(index).toContain("import { getCard } from './getCard.js';");
    expect(index).toMatch(/export const handlers: CardApiHandlers = \{\n {2}closeCard,/);
  });

  it('never overwrites an existing file and reports it', async () => {
    const cwd = await mkdtemp(path.join(tmpdir(), 'scaffold-'));
    try {
      const files = scaffoldHandlers(model, 'handlers');
      await writeScaffold('handlers', files.slice(0, 1), cwd);
      await writeFile(path.join(cwd, 'handlers/closeCard.ts'), 'mine\n');
      const result = await writeScaffold('handlers', files, cwd);
      expect(result.skipped).toEqual(['handlers/closeCard.ts']);
      expect(result.written).toHaveLength(files.length - 1);
      expect(await readFile(path.join(cwd, 'handlers/closeCard.ts'), 'utf8')).toBe('mine\n');
      expect((await writeScaffold('handlers', files, cwd)).written).toEqual([]);
      await expect(writeScaffold('handlers', [{ path: '../evil.ts', contents: '' }], cwd)).rejects.toThrow(/outside/);
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
