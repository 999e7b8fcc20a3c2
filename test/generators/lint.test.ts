/**
 * `lint` and the generators report a spec they cannot read, parse or recognise as OpenAPI 3.1 the same way
 * (file, pointer, reason; the CLI exits 2), a dangling `$ref` names its target in both, and every document an
 * error message or the source refers to exists.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { lintConfig, lintSpec } from '../../generators/lint/lint-spec.js';
import { loadConfig } from '../../generators/model/redocly.js';
import { loadModel, SpecError, SpecErrors } from '../../generators/model/index.js';
import { ROOT, tempDir, writeSpecCopy } from '../helpers/spec.js';

const run = promisify(execFile);
const BIN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');
const tmp = tempDir('lint');
afterAll(tmp.cleanup);

async function rejection(p: Promise<unknown>): Promise<SpecError> {
  const error = await p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  if (error instanceof SpecErrors && error.errors.length === 1) return error.errors[0]!;
  if (error instanceof SpecError) return error;
  throw error;
}

/** Specs that cannot be linted at all: name → file. */
function brokenSpecs(): Array<[string, string]> {
  const yaml = path.join(tmp.dir, 'syntax.yaml');
  writeFileSync(yaml, 'openapi: 3.1.0\ninfo: {title: x\npaths: {}\n');
  const scalar = path.join(tmp.dir, 'scalar.json');
  writeFileSync(scalar, '42\n');
  const dir = path.join(tmp.dir, 'v30');
  mkdirSync(dir, { recursive: true });
  const v30 = writeSpecCopy(dir, (d) => (d.openapi = '3.0.3'));
  return [
    ['a missing file', path.join(tmp.dir, 'nope.yaml')],
    ['a YAML syntax error', yaml],
    ['a document that is not an object', scalar],
    ['an OpenAPI 3.0 document', v30],
  ];
}

const CASES = brokenSpecs();

describe('lint on a spec it cannot lint', () => {
  it.each(CASES)('%s: the same SpecError as the generators', async (_, file) => {
    const fromLint = await rejection(lintSpec(file));
    const fromGenerators = await rejection(loadModel(file));
    expect(fromLint.message).toBe(fromGenerators.message);
    expect(fromLint.file).toMatch(/\.(yaml|json)$/);
    expect(fromLint.pointer).toMatch(/^#/);
    expect(fromLint.reason.length).toBeGreaterThan(0);
  });

  it('the CLI prints file, pointer and reason and exits 2, as `client` does', async () => {
    const runs = await Promise.all(
      CASES.map(([, file]) =>
        run(process.execPath, [BIN, 'lint', '--spec', file], { cwd: ROOT }).then(
          () => ({ code: 0, stderr: '' }),
          (e: { code: number; stderr: string }) => e,
        ),
      ),
    );
    for (const [i, [name, file]] of CASES.entries()) {
      const expected = await rejection(loadModel(file));
      expect(runs[i]!.code, name).toBe(2);
      expect(runs[i]!.stderr, name).toContain(`error ${expected.message}\n1 problem(s) in the spec`);
    }
  });

  it('names the target of a dangling $ref', async () => {
    const dir = path.join(tmp.dir, 'dangling');
    mkdirSync(dir, { recursive: true });
    const file = writeSpecCopy(dir, (d) => (d.paths['/wallet'].get.responses['200'].content['application/json'].schema.properties.data.$ref = '#/components/schemas/Nope'));
    const report = await lintSpec(file);
    const problem = report.problems.find((p) => p.rule === 'no-unresolved-refs');
    expect(problem, JSON.stringify(report.problems)).toMatchObject({
      pointer: '#/paths/~1wallet/get/responses/200/content/application~1json/schema/properties/data',
      file: expect.stringMatching(/openapi\.yaml$/),
    });
    expect(problem!.message).toMatch(/^\$ref "#\/components\/schemas\/Nope" \(resolved against \S*openapi\.yaml\) points at nothing: \S*openapi\.yaml has no #\/components\/schemas\/Nope$/);
  });
});

describe('documents referred to by messages and source', () => {
  it('exist in the repository', () => {
    const roots = ['generators', 'templates', 'spec/lint', ...readdirSync(path.join(ROOT, 'packages')).map((p) => `packages/${p}/src`), 'packages/cli/bin'];
    const refs: string[] = [];
    const walk = (dir: string): void => {
      if (!existsSync(dir)) return;
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) {
          if (entry.name !== 'node_modules' && entry.name !== 'dist') walk(full);
        } else if (/\.(ts|js|mjs)$/.test(entry.name) && !/\.test(-d)?\.ts$/.test(entry.name)) {
          for (const match of readFileSync(full, 'utf8').matchAll(/(?<![\w/.-])((?:[\w.-]+\/)*[\w.-]+\.md)\b/g)) {
            refs.push(`${path.relative(ROOT, full)} -> ${match[1]}`);
          }
        }
      }
    };
    for (const root of roots) walk(path.join(ROOT, root));
    expect(refs.some((r) => r.endsWith('-> generators/README.md'))).toBe(true);
    // A path under node_modules/ names where a file lies in a user's project once installed (assets.ts), and exists
    // here only after `make build`: judging it would make this test depend on whether the build ran first.
    const missing = refs.filter((r) => !r.split(' -> ')[1]!.startsWith('node_modules/') && !existsSync(path.join(ROOT, r.split(' -> ')[1]!)));
    expect(missing).toEqual([]);
  });
});

describe('the lint configuration', () => {
  // lintConfig skips loadConfig's bundle of a configuration that holds no `$ref` (it bundles to itself); what lint
  // gets must be the very configuration loadConfig builds, for each configuration lint uses.
  const configs = [path.join(ROOT, 'redocly.yaml'), path.join(ROOT, 'spec/sandbox/redocly.yaml')];
  it.each(configs)('%s: the same configuration as loadConfig builds', async (configPath) => {
    const [fast, full] = await Promise.all([lintConfig(configPath), loadConfig({ configPath })]);
    expect(fast.rawConfig).toEqual(full.rawConfig);
    expect(fast.configFile).toBe(full.configFile);
    expect(fast.styleguide.rules).toEqual(full.styleguide.rules);
    expect(fast.styleguide.plugins.map((p) => p.id)).toEqual(full.styleguide.plugins.map((p) => p.id));
    expect(fast.styleguide.preprocessors).toEqual(full.styleguide.preprocessors);
    expect(fast.styleguide.decorators).toEqual(full.styleguide.decorators);
    expect(fast).toEqual(full);
  });

  it('a configuration with a $ref, or one that does not parse, takes loadConfig\'s path and its errors', async () => {
    const dir = path.join(tmp.dir, 'config');
    mkdirSync(dir, { recursive: true });
    writeFileSync(path.join(dir, 'rules.yaml'), 'operation-description: error\n');
    const withRef = path.join(dir, 'redocly.yaml');
    writeFileSync(withRef, "extends: [recommended]\nrules:\n  $ref: './rules.yaml'\n");
    const config = await lintConfig(withRef);
    expect(config.rawConfig.styleguide?.rules).toHaveProperty('operation-description', 'error');
    expect(config).toEqual(await loadConfig({ configPath: withRef }));
    const broken = path.join(dir, 'broken.yaml');
    writeFileSync(broken, 'rules: {operation-description: error\n');
    const message = await lintConfig(broken).then(
      () => 'resolved',
      (e: Error) => e.message,
    );
    expect(message).toMatch(/^Error parsing config file at '.*broken\.yaml'/);
  });
});

describe("the generators' checks name the field they refuse", () => {
  it('with its JSON pointer, keys escaped (`/` as ~1, `~` as ~0), in spec text and in patterns', async () => {
    const dir = path.join(tmp.dir, 'pointers');
    mkdirSync(dir, { recursive: true });
    const spec = writeSpecCopy(dir, (d) => {
      d.paths['/cards'].get.description = 'Lists cards\u0007';
      d.paths['/cards'].get.tags = [...(d.paths['/cards'].get.tags ?? []), 'cards*/'];
      d.components.schemas.Card.properties["o'brien"] = { type: 'string', description: 'A name.' };
      d.components.schemas.Card.properties.pan_last4.pattern = '[\\w-.]';
      d.components.schemas.Card.patternProperties = { 'a~b/c\\-': { type: 'string' } };
      // Data, not schemas or prose: examples and extensions are never judged.
      d.components.schemas.Card['x-note'] = { description: 'not prose\u0007', pattern: '[\\w-.]' };
    });
    const report = await lintSpec(spec);
    const ours = report.problems.filter((p) => p.source === 'gen-card-api').map((p) => `${p.rule} ${p.pointer}`);
    expect(ours.sort()).toEqual(
      [
        'spec-text #/paths/~1cards/get/description',
        'spec-text #/paths/~1cards/get/tags/1',
        "spec-text #/components/schemas/Card/properties/o'brien",
        'server-runtime #/components/schemas/Card/properties/pan_last4/pattern',
        'server-runtime #/components/schemas/Card/patternProperties/a~0b~1c\\-',
      ].sort(),
    );
  });
});
