/**
 * Every document the CLI names (in its help, its errors, the bundled spec's description) ships with it and is named
 * by a path the user can open from where they ran it: `docs/diff-checks.md` in the checkout,
 * `node_modules/gen-card-api/dist/assets/docs/diff-checks.md` in a project. The build copies exactly SHIPPED_DOCS;
 * the registry test (test/registry) opens the path an installed gen-card-api prints, and test/generators/model.test.ts
 * the section the x-client error points at.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ASSET_ROOT, docPath, SHIPPED_DOCS } from '../../generators/core/assets.js';
import { parseOverrides } from '../../generators/diff/overrides.js';
import { copyCliAssets } from '../../scripts/build.js';
import { ROOT, tempDir } from '../helpers/spec.js';

const tmp = tempDir('shipped-docs');
afterAll(tmp.cleanup);
const BIN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');

/** Non-test TypeScript under a folder. */
function sources(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(entry.name))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe('documents the CLI names', () => {
  it('exist in the repository, and the build copies each into the assets an installed CLI reads', async () => {
    for (const doc of SHIPPED_DOCS) expect(existsSync(path.join(ROOT, doc)), doc).toBe(true);
    const assets = path.join(tmp.dir, 'assets');
    await copyCliAssets(assets);
    for (const doc of SHIPPED_DOCS) expect(readFileSync(path.join(assets, doc), 'utf8'), doc).toBe(readFileSync(path.join(ROOT, doc), 'utf8'));
  });

  it('are named in code only through docPath(), never as a bare path', () => {
    const bare: string[] = [];
    for (const file of [...sources('packages/cli/src'), ...sources('generators'), ...sources('spec')]) {
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          const code = line.replace(/^\s*(\/\/|\/?\*).*$/, '').replace(/\/\/ .*$/, '');
          for (const match of code.matchAll(/[\w./-]+\.md\b/g)) {
            if (!/docPath\('[^']+'\)|SHIPPED_DOCS = /.test(code)) bare.push(`${path.relative(ROOT, file)}:${i + 1}: ${match[0]}`);
          }
        });
    }
    expect(bare).toEqual([]);
  });

  it('diff --help names the catalogue by a path that exists from the folder it runs in', () => {
    const elsewhere = path.join(tmp.dir, 'project');
    const result = spawnSync(process.execPath, [BIN, 'diff', '--help'], { cwd: tmp.dir, encoding: 'utf8', env: { ...process.env, COLUMNS: '400' } });
    expect(result.status).toBe(0);
    const named = /\(see ([^)\s]+\.md)\)/.exec(result.stdout.replace(/\s+/g, ' '))?.[1];
    expect(named).toBe(docPath('docs/diff-checks.md', tmp.dir));
    expect(existsSync(path.resolve(tmp.dir, named!))).toBe(true);
    expect(docPath('docs/diff-checks.md', ROOT)).toBe('docs/diff-checks.md');
    expect(path.resolve(elsewhere, docPath('docs/diff-checks.md', elsewhere))).toBe(path.join(ASSET_ROOT, 'docs/diff-checks.md'));
  });

  it('an unknown check id in an overrides file names the catalogue by a path that exists', () => {
    let message = '';
    try {
      parseOverrides({ overrides: [{ id: 'no-such-check', level: 'ignore', reason: 'x' }] }, 'overrides.yaml');
    } catch (error) {
      message = String((error as { errors?: Array<{ message: string }> }).errors?.map((e) => e.message).join('\n') ?? error);
    }
    const named = /see (\S+\.md)/.exec(message)?.[1];
    expect(named, message).toBe(docPath('docs/diff-checks.md'));
    expect(existsSync(path.resolve(named!))).toBe(true);
  });
});
