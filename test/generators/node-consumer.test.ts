/**
 * Every entry of every library compiles in a Node consumer without the DOM lib (`lib: ["es2023"]`,
 * `types: ["node"]`, `skipLibCheck: false`): WebCrypto's `CryptoKey`, fetch's types and the like must come from
 * `@types/node` there. The entries are read from each package.json's `exports`, so a new entry is covered.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/spec.js';

const run = promisify(execFile);
const TSC = path.join(ROOT, 'node_modules/typescript/bin/tsc');
const tmp = tempDir('node-consumer');
afterAll(tmp.cleanup);

/** `@card-api/webhooks`, `@card-api/webhooks/web`, ...: every library entry (the CLI is not a library). */
function libraryEntries(): string[] {
  const entries: string[] = [];
  for (const dir of readdirSync(path.join(ROOT, 'packages')).sort()) {
    let pkg: { name?: string; exports?: Record<string, unknown> };
    try {
      pkg = JSON.parse(readFileSync(path.join(ROOT, 'packages', dir, 'package.json'), 'utf8'));
    } catch {
      continue;
    }
    // The CLI exports only its package.json; a library with a bin of its own (the sandbox) is still a library.
    if (!pkg.name || !pkg.exports || Object.keys(pkg.exports).every((key) => key === './package.json')) continue;
    for (const key of Object.keys(pkg.exports)) {
      if (key === './package.json' || key.includes('*')) continue;
      entries.push(key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`);
    }
  }
  return entries;
}

describe('a Node consumer without the DOM lib', () => {
  it('compiles an import of every library entry', async () => {
    const entries = libraryEntries();
    // The five libraries and the webhooks subpaths at least; a package that loses its exports must not pass silently.
    expect(entries).toEqual(expect.arrayContaining([
      '@card-api/types', '@card-api/client', '@card-api/server', '@card-api/webhooks', '@card-api/sandbox', '@card-api/sandbox/cli',
      '@card-api/webhooks/web', '@card-api/webhooks/adapters', '@card-api/webhooks/secrets', '@card-api/webhooks/lifeline', '@card-api/webhooks/testing',
    ]));
    const source = [
      ...entries.map((entry, i) => `import * as entry${i} from '${entry}';`),
      `export const entries: unknown[] = [${entries.map((_, i) => `entry${i}`).join(', ')}];`,
      '',
    ].join('\n');
    writeFileSync(path.join(tmp.dir, 'package.json'), JSON.stringify({ name: 'node-consumer', private: true, type: 'module' }));
    writeFileSync(path.join(tmp.dir, 'consumer.ts'), source);
    // Resolve the packages as the repository's tsconfig does (its custom export condition points at src/).
    const parsed = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} });
    const conditions = parsed?.options.customConditions;
    const compilerOptions = {
      strict: true,
      target: 'ES2022',
      module: 'node16',
      moduleResolution: 'node16',
      lib: ['es2023'],
      types: ['node'],
      skipLibCheck: false,
      noEmit: true,
      ...(conditions ? { customConditions: conditions } : {}),
    };
    writeFileSync(path.join(tmp.dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
    const output = await run(process.execPath, [TSC, '-p', path.join(tmp.dir, 'tsconfig.json')], { maxBuffer: 16 * 1024 * 1024 }).then(
      () => '',
      (e: { stdout: string; stderr: string }) => `${e.stdout}${e.stderr}`,
    );
    expect(output).toBe('');
  });
});
