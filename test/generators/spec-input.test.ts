/**
 * A spec is untrusted input (issue 22): every read of one goes through the loader's policy. A `$ref` stays in the
 * spec's folder (no absolute path, `..`, symlink or device leads out), remote documents are fetched only when
 * allowed and then within a timeout and a size cap, and YAML aliases, nesting and bytes are bounded. Each refusal is
 * a `SpecError` with file, pointer and reason from both the generators' loader and `lint`, and the CLI exits 2.
 * Servers are on loopback at port 0; limits are lowered per test so that every case ends in well under a second.
 */
import { execFile, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintSpec } from '../../generators/lint/lint-spec.js';
import { inputPolicy, loadSpec, SpecError, SpecErrors, type InputPolicy } from '../../generators/model/index.js';
import { ROOT, SPEC_PATH, tempDir } from '../helpers/spec.js';

const BIN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');
const tmp = tempDir('spec-input');
afterAll(tmp.cleanup);

const MINIMAL = "openapi: 3.1.0\ninfo:\n  title: t\n  version: '1'\npaths: {}\n";
let counter = 0;

/** Writes `text` as a spec in a fresh folder (optionally a subfolder of it); returns its path and folder. */
function specFile(text: string, sub = ''): { file: string; dir: string } {
  const dir = path.join(tmp.dir, `case-${++counter}`);
  mkdirSync(path.join(dir, sub), { recursive: true });
  const file = path.join(dir, sub, 'openapi.yaml');
  writeFileSync(file, text);
  return { file, dir };
}

/** The minimal spec with `lines` added under `info` (an `x-` field is the smallest place a `$ref` is resolved). */
const withInfo = (lines: string) => MINIMAL.replace("info:\n", `info:\n${lines}`);

/** The real spec with `lines` added under `info`, for the CLI cases that would otherwise generate a client. */
const realWithInfo = (lines: string) => readFileSync(SPEC_PATH, 'utf8').replace(/^info:\n/m, `info:\n${lines}`);

async function rejection(p: Promise<unknown>): Promise<SpecError> {
  const error = await p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e: unknown) => e,
  );
  if (error instanceof SpecErrors) return error.errors[0]!;
  if (error instanceof SpecError) return error;
  throw error;
}

/** The loader's and lint's refusal of one spec: the same file, pointer and reason. */
async function refusal(file: string, policy?: InputPolicy): Promise<SpecError> {
  const fromLoader = await rejection(loadSpec(file, { cache: false, ...(policy ? { policy } : {}) }));
  if (!policy) {
    const fromLint = await rejection(lintSpec(file));
    expect(fromLint.message).toBe(fromLoader.message);
  }
  return fromLoader;
}

const policy = (overrides: Parameters<typeof inputPolicy>[0]) => inputPolicy(overrides);

const BOMB = (indent: string) => {
  const lines = [`${indent}a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]`];
  for (const [name, prev] of [...'bcdefghi'].map((c, i) => [c, 'abcdefgh'[i]!])) lines.push(`${indent}${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`);
  return `${lines.join('\n')}\n`;
};

describe('local $refs stay inside the spec folder', () => {
  it('refuses an absolute path (/etc/passwd) with file, pointer and reason', async () => {
    const { file } = specFile(withInfo('  x-leak:\n    $ref: /etc/passwd\n'));
    const error = await refusal(file);
    expect(error.file).toMatch(/openapi\.yaml$/);
    expect(error.pointer).toBe('#/info/x-leak');
    expect(error.reason).toMatch(/^\$ref "\/etc\/passwd" \(resolved against \S+openapi\.yaml\) is refused: \/etc\/passwd is outside the spec's folder \S+\/: local \$refs stay inside it/);
  });

  it('refuses a .. escape', async () => {
    const { file, dir } = specFile(withInfo('  x-secret:\n    $ref: ../secret.yaml\n'), 'spec');
    writeFileSync(path.join(dir, 'secret.yaml'), 'token: s3cret\n');
    const error = await refusal(file);
    expect(error.pointer).toBe('#/info/x-secret');
    expect(error.reason).toMatch(/\$ref "\.\.\/secret\.yaml" .* is refused: \S*secret\.yaml is outside the spec's folder/);
  });

  it('refuses /dev/zero: outside the folder, and as a device even where the folder is widened to /', async () => {
    const { file } = specFile(withInfo('  x-zero:\n    $ref: /dev/zero\n'));
    expect((await refusal(file)).reason).toMatch(/\/dev\/zero is outside the spec's folder/);
    const widened = await refusal(file, policy({ allowRefsOutside: ['/'] }));
    expect(widened.reason).toMatch(/\/dev\/zero is a system file/);
  });

  it('refuses a FIFO inside the folder without opening it for a blocking read', async () => {
    const { file, dir } = specFile(withInfo('  x-fifo:\n    $ref: ./pipe.yaml\n'));
    const made = spawnSync('mkfifo', [path.join(dir, 'pipe.yaml')]);
    if (made.status !== 0) return; // No mkfifo here: the device case above covers "not a regular file".
    expect((await refusal(file)).reason).toMatch(/pipe\.yaml is a FIFO, not a regular file/);
  });

  it('refuses a symlink that leads out of the folder, follows one that stays inside', async () => {
    const { file, dir } = specFile(withInfo('  x-out:\n    $ref: ./out.yaml\n'));
    writeFileSync(path.join(tmp.dir, 'outside.yaml'), 'secret: 1\n');
    symlinkSync(path.join(tmp.dir, 'outside.yaml'), path.join(dir, 'out.yaml'));
    expect((await refusal(file)).reason).toMatch(/out\.yaml leads through a symlink to \S+outside\.yaml, outside the spec's folder/);

    const inner = specFile(withInfo('  x-in:\n    $ref: ./in.yaml\n'));
    writeFileSync(path.join(inner.dir, 'real.yaml'), 'fine: 1\n');
    symlinkSync(path.join(inner.dir, 'real.yaml'), path.join(inner.dir, 'in.yaml'));
    const loaded = await loadSpec(inner.file, { cache: false });
    expect((loaded.document.info as Record<string, unknown>)['x-in']).toEqual({ fine: 1 });
  });

  it('reads a folder that --allow-refs-outside names, and only that one', async () => {
    const { file, dir } = specFile(withInfo('  x-common:\n    $ref: ../shared/common.yaml\n'), 'spec');
    const shared = path.join(dir, 'shared');
    mkdirSync(shared, { recursive: true });
    writeFileSync(path.join(shared, 'common.yaml'), 'shared: true\n');
    await rejection(loadSpec(file, { cache: false }));
    const loaded = await loadSpec(file, { cache: false, policy: policy({ allowRefsOutside: [shared] }) });
    expect((loaded.document.info as Record<string, unknown>)['x-common']).toEqual({ shared: true });
  });

  it('refuses other schemes (file:) and an externalValue outside the folder', async () => {
    expect((await refusal(specFile(withInfo('  x-file:\n    $ref: file:///etc/passwd\n')).file)).reason).toMatch(/file: references are not supported/);
    const example = MINIMAL.replace('paths: {}\n', 'paths: {}\ncomponents:\n  examples:\n    Leak:\n      externalValue: /etc/passwd\n');
    expect((await rejection(loadSpec(specFile(example).file, { cache: false }))).reason).toMatch(/\/etc\/passwd is outside the spec's folder/);
  });

  it('lint never resolves a $ref Redocly leaves as data (under default), not even through its second validator', async () => {
    writeFileSync(path.join(tmp.dir, 'not-yaml.yaml'), ': : : [\n');
    const spec = MINIMAL.replace('paths: {}\n', `paths: {}\ncomponents:\n  schemas:\n    Data:\n      type: object\n      default:\n        $ref: ${path.join(tmp.dir, 'not-yaml.yaml')}\n`);
    const report = await lintSpec(specFile(spec).file);
    expect(report.problems.filter((p) => p.source !== 'redocly')).toEqual([]);
  });
});

describe('bounded parsing', () => {
  it.each([
    ['an x- field', withInfo(`  x-bomb:\n${BOMB('    ')}`), /^#\/info\/x-bomb\//],
    ['a schema example', MINIMAL.replace('paths: {}\n', `paths: {}\ncomponents:\n  schemas:\n    Bomb:\n      type: object\n      example:\n${BOMB('        ')}`), /^#\/components\/schemas\/Bomb\/example\//],
  ])('refuses a billion laughs in %s, pointing at an alias', async (_, text, at) => {
    const error = await refusal(specFile(text).file);
    expect(error.pointer).toMatch(at);
    expect(error.reason).toMatch(/YAML aliases expand the document by more than 100,000 nodes/);
  });

  it('refuses an alias bomb in a referenced file at the $ref, naming the file and the alias', async () => {
    const { file, dir } = specFile(withInfo('  x-big:\n    $ref: ./bomb.yaml\n'));
    writeFileSync(path.join(dir, 'bomb.yaml'), BOMB(''));
    const error = await refusal(file);
    expect(error.pointer).toBe('#/info/x-big');
    expect(error.reason).toMatch(/is refused: \S*bomb\.yaml #\/[a-i]\/\d+: YAML aliases expand the document/);
  });

  it('refuses an alias inside the node it names (an infinite document)', async () => {
    expect((await refusal(specFile(withInfo('  x-loop: &loop\n    again: *loop\n')).file)).reason).toMatch(/a YAML alias refers to a node that contains it/);
  });

  it('refuses nesting past the depth limit, in YAML and in JSON', async () => {
    const root = await refusal(specFile(withInfo(`  x-deep: ${'['.repeat(5000)}${']'.repeat(5000)}\n`)).file);
    expect([root.reason, root.line]).toEqual(['nesting deeper than 100 levels', 3]);
    const { file, dir } = specFile(withInfo('  x-deep:\n    $ref: ./deep.json\n'));
    writeFileSync(path.join(dir, 'deep.json'), `${'['.repeat(5000)}${']'.repeat(5000)}`);
    expect((await refusal(file)).reason).toMatch(/^\$ref "\.\/deep\.json" .* is refused: nesting deeper than 100 levels$/);
    const deep = policy({ limits: { maxDepth: 10 } });
    const error = await rejection(loadSpec(specFile(withInfo(`  x-deep: ${'['.repeat(20)}${']'.repeat(20)}\n`)).file, { cache: false, policy: deep }));
    expect(error.reason).toBe('nesting deeper than 10 levels');
    expect(error.pointer).toMatch(/^#\/info\/x-deep(\/0)+$/);
  });

  it('refuses a spec, and a referenced file, past the byte limit', async () => {
    const small = policy({ limits: { maxBytes: 4096 } });
    const big = specFile(withInfo(`  x-pad: "${'x'.repeat(8192)}"\n`));
    expect((await rejection(loadSpec(big.file, { cache: false, policy: small }))).reason).toMatch(/openapi\.yaml \(8\.\d+ KiB\) goes past 4 KiB, the limit on a spec and the files it references together$/);
    const { file, dir } = specFile(withInfo('  x-pad:\n    $ref: ./pad.yaml\n'));
    writeFileSync(path.join(dir, 'pad.yaml'), `pad: "${'x'.repeat(8192)}"\n`);
    expect((await rejection(loadSpec(file, { cache: false, policy: small }))).reason).toMatch(/is refused: \S*pad\.yaml \(8\.\d+ KiB\) goes past 4 KiB/);
  });
});

describe('remote documents', () => {
  let server: Server;
  let origin = '';
  const sockets = new Set<import('node:net').Socket>();
  beforeAll(async () => {
    server = createServer((req, res) => {
      const url = req.url ?? '/';
      if (url === '/doc.yaml') return void res.writeHead(200, { 'content-type': 'application/yaml' }).end('remote: true\n');
      if (url === '/redirect') return void res.writeHead(302, { location: '/doc.yaml' }).end();
      if (url === '/to-file') return void res.writeHead(302, { location: 'file:///etc/passwd' }).end();
      if (url === '/claims-1gib') return void res.writeHead(200, { 'content-length': String(2 ** 30) }).write('a: ');
      if (url === '/endless') {
        res.writeHead(200);
        const chunk = Buffer.alloc(16 * 1024, 97);
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
        };
        res.on('drain', pump);
        return pump();
      }
      if (url === '/drip') {
        res.writeHead(200);
        const timer = setInterval(() => res.write('a'), 50);
        res.on('close', () => clearInterval(timer));
        return;
      }
      if (url === '/spec.yaml') return void res.writeHead(200).end(withInfo('  x-part:\n    $ref: ./doc.yaml\n'));
      res.writeHead(404).end();
    });
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const remote = (overrides: Parameters<typeof inputPolicy>[0] = {}) => policy({ allowRemoteRefs: true, ...overrides, limits: { remoteTimeoutMs: 1000, maxBytes: 256 * 1024, ...overrides.limits } });
  const refTo = (pathname: string) => specFile(withInfo(`  x-remote:\n    $ref: ${origin}${pathname}\n`)).file;

  it('refuses a remote $ref without --allow-remote-refs, and a spec given as a URL', async () => {
    expect((await refusal(refTo('/doc.yaml'))).reason).toMatch(/is remote; remote \$refs are fetched only with --allow-remote-refs/);
    expect((await rejection(loadSpec(`${origin}/spec.yaml`, { cache: false }))).reason).toBe('reading a spec from a URL needs --allow-remote-refs');
  });

  it('with the flag: fetches a spec by URL with its relative refs, and follows a redirect within the scheme', async () => {
    const loaded = await loadSpec(`${origin}/spec.yaml`, { cache: false, policy: remote() });
    expect((loaded.document.info as Record<string, unknown>)['x-part']).toEqual({ remote: true });
    const redirected = await loadSpec(refTo('/redirect'), { cache: false, policy: remote() });
    expect((redirected.document.info as Record<string, unknown>)['x-remote']).toEqual({ remote: true });
  });

  it.each([
    ['a body that drips', '/drip', /did not arrive within 1 s/],
    ['an endless body', '/endless', /goes past 256 KiB/],
    ['a 1 GiB Content-Length', '/claims-1gib', /\(by its Content-Length\) \(1024 MiB\) goes past 256 KiB/],
    ['a redirect to file:', '/to-file', /redirects to file: \(redirects are followed only within http:\)/],
  ])('with the flag: refuses %s', async (_, pathname, reason) => {
    const error = await rejection(loadSpec(refTo(pathname), { cache: false, policy: remote() }));
    expect(error.pointer).toBe('#/info/x-remote');
    expect(error.reason).toMatch(reason);
  });
});

describe('the CLI', () => {
  const cli = (args: string[], options: { cwd?: string; input?: string } = {}) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(process.execPath, [BIN, ...args], { cwd: options.cwd ?? tmp.dir, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) =>
        resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      );
      child.stdin!.end(options.input ?? '');
    });

  it('lint and client exit 2 on a $ref to /etc/passwd, and client writes nothing', async () => {
    const { file, dir } = specFile(realWithInfo('  x-leak:\n    $ref: /etc/passwd\n'));
    const out = path.join(dir, 'client');
    const [lint, client] = await Promise.all([cli(['lint', file]), cli(['client', file, '--out', out])]);
    for (const run of [lint, client]) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/^error \S+openapi\.yaml #\/info\/x-leak: \$ref "\/etc\/passwd" .* is refused/m);
    }
    expect(existsSync(out) ? readdirSync(out) : []).toEqual([]);
  });

  it('lint and client exit 2 on an alias bomb', async () => {
    const { file, dir } = specFile(realWithInfo(`  x-bomb:\n${BOMB('    ')}`));
    const runs = await Promise.all([cli(['lint', file]), cli(['client', file, '--out', path.join(dir, 'client')])]);
    for (const run of runs) {
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toMatch(/#\/info\/x-bomb\/.*YAML aliases expand the document/);
    }
  });

  it('reads a spec from stdin (-): no local $ref without --allow-refs-outside, relative to the working directory with it', async () => {
    const { dir } = specFile('');
    writeFileSync(path.join(dir, 'part.yaml'), 'from: stdin\n');
    const input = withInfo('  x-part:\n    $ref: ./part.yaml\n');
    const [refused, allowed] = await Promise.all([cli(['bundle', '-'], { cwd: dir, input }), cli(['bundle', '-', '--format', 'json', '--allow-refs-outside', '.'], { cwd: dir, input })]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/^error <stdin> #\/info\/x-part: \$ref "\.\/part\.yaml" .* is refused: part\.yaml: a spec read from stdin resolves no local \$ref \(--allow-refs-outside <dir>/m);
    expect(refused.stdout).toBe('');
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(JSON.parse(allowed.stdout).info['x-part']).toEqual({ from: 'stdin' });
  });

  /**
   * The bar of issue 31: a spec beside a project's `.env` and a `notes.txt` that `$ref`s both. Every command that
   * loads a spec refuses it (exit 2, file, pointer, reason), and neither secret reaches stdout, stderr or a file.
   */
  it('every command that loads a spec refuses $refs to a .env and a .txt beside it, and no secret reaches any output', async () => {
    const { file, dir } = specFile(realWithInfo('  x-env:\n    $ref: .env\n  x-notes:\n    $ref: notes.txt\n'));
    writeFileSync(path.join(dir, '.env'), 'CARD_API_TOKEN=ENV-SECRET-31\n');
    writeFileSync(path.join(dir, 'notes.txt'), 'TXT-SECRET-31\n');
    const out = (name: string) => path.join(dir, `out-${name}`);
    const commands: Array<[string, string[]]> = [
      ['bundle', ['bundle', file]],
      ['bundle -o', ['bundle', file, '-o', path.join(out('bundle'), 'bundled.yaml')]],
      ['client', ['client', file, '--out', out('client')]],
      ['types', ['types', file, '--out', out('types')]],
      ['server', ['server', file, '--out', out('server')]],
      ['webhooks', ['webhooks', file, '--out', out('webhooks')]],
      ['all', ['all', file, '--out', out('all')]],
      ['check', ['check', file]],
      ['lint', ['lint', file]],
      ['diff', ['diff', SPEC_PATH, file]],
    ];
    mkdirSync(out('bundle'));
    const runs = await Promise.all(commands.map(([, args]) => cli(args, { cwd: ROOT })));
    for (const [i, [name]] of commands.entries()) {
      const run = runs[i]!;
      expect(run.code, `${name}: ${run.stderr}`).toBe(2);
      expect(run.stderr, name).toMatch(/openapi\.yaml #\/info\/x-env: \$ref "\.env" .* is refused: \S*\.env is a dotfile: a \$ref target is a \.yaml, \.yml or \.json document \(--allow-ref-file \S*\.env allows this one\)/);
      expect(run.stderr, name).toMatch(/openapi\.yaml #\/info\/x-notes: \$ref "notes\.txt" .* is refused: \S*notes\.txt is a \.txt file/);
      expect(`${run.stdout}${run.stderr}`, name).not.toMatch(/ENV-SECRET-31|TXT-SECRET-31/);
    }
    // Nothing written anywhere: no file under any --out holds a secret (there is no file at all).
    const written = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.startsWith('out-'));
    expect(written.filter((f) => !['out-bundle'].includes(f))).toEqual([]);
    expect(readdirSync(out('bundle'))).toEqual([]);
  });

  it('refuses a URL without --allow-remote-refs (exit 2), reads it with the flag', async () => {
    const server = createServer((_req, res) => res.writeHead(200).end(MINIMAL));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/openapi.yaml`;
    try {
      const [refused, allowed] = await Promise.all([cli(['bundle', url]), cli(['bundle', url, '--allow-remote-refs'])]);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('reading a spec from a URL needs --allow-remote-refs');
      expect(allowed.code, allowed.stderr).toBe(0);
      expect(allowed.stdout).toContain('openapi: 3.1.0');
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

/** Issue 31: what a local `$ref` may name. The loader and lint refuse the same way (see `refusal`). */
describe('a local $ref target is a YAML or JSON document', () => {
  it.each([
    ['a dotfile', '.env', 'TOKEN=s3cret\n', /\.env is a dotfile: a \$ref target is a \.yaml, \.yml or \.json document \(--allow-ref-file \S*\.env allows this one\)$/],
    ['a .txt file', 'notes.txt', 's3cret\n', /notes\.txt is a \.txt file/],
    ['a file without an extension', 'credentials', 's3cret\n', /credentials has no extension/],
    ['a YAML file under a dot-folder', '.config/app.yaml', 'token: s3cret\n', /\.config\/app\.yaml is under the dot-folder \.config\//],
    ['a dot-YAML file', '.secrets.yaml', 'token: s3cret\n', /\.secrets\.yaml is a dotfile/],
  ])('refuses %s with file, pointer and reason', async (_, name, contents, reason) => {
    const { file, dir } = specFile(withInfo(`  x-leak:\n    $ref: ${JSON.stringify(name)}\n`));
    mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
    writeFileSync(path.join(dir, name), contents);
    const error = await refusal(file);
    expect(error.file).toMatch(/openapi\.yaml$/);
    expect(error.pointer).toBe('#/info/x-leak');
    expect(error.reason).toMatch(reason);
  });

  it('refuses a .yaml symlink that leads to a .env in the same folder', async () => {
    const { file, dir } = specFile(withInfo('  x-leak:\n    $ref: ./innocent.yaml\n'));
    writeFileSync(path.join(dir, '.env'), 'TOKEN=s3cret\n');
    symlinkSync(path.join(dir, '.env'), path.join(dir, 'innocent.yaml'));
    expect((await refusal(file)).reason).toMatch(/innocent\.yaml \(it leads to \S*\.env\) is a dotfile/);
  });

  it('reads a file --allow-ref-file names (inlined as text, as Redocly does), and only that one', async () => {
    const { file, dir } = specFile(withInfo('  description:\n    $ref: ./intro.md\n  x-other:\n    $ref: ./other.md\n'));
    writeFileSync(path.join(dir, 'intro.md'), '# Intro\n');
    writeFileSync(path.join(dir, 'other.md'), '# Other\n');
    const error = await rejection(loadSpec(file, { cache: false, policy: policy({ allowRefFiles: [path.join(dir, 'intro.md')] }) }));
    expect(error.pointer).toBe('#/info/x-other');
    const both = await loadSpec(file, { cache: false, policy: policy({ allowRefFiles: [path.join(dir, 'intro.md'), path.join(dir, 'other.md')] }) });
    expect(both.document.info).toMatchObject({ description: '# Intro\n', 'x-other': '# Other\n' });
  });

  it('still refuses an allowed file outside the folder: --allow-ref-file lifts the name rule only', async () => {
    const { file, dir } = specFile(withInfo('  x-leak:\n    $ref: ../notes.txt\n'), 'spec');
    writeFileSync(path.join(dir, 'notes.txt'), 's3cret\n');
    const error = await rejection(loadSpec(file, { cache: false, policy: policy({ allowRefFiles: [path.join(dir, 'notes.txt')] }) }));
    expect(error.reason).toMatch(/notes\.txt is outside the spec's folder/);
  });

  it('reports a .yaml target that is not YAML at its $ref, with the file and the parser\'s reason', async () => {
    const { file, dir } = specFile(withInfo('  x-broken:\n    $ref: ./broken.yaml\n'));
    writeFileSync(path.join(dir, 'broken.yaml'), 'a: [unclosed\n');
    const error = await rejection(loadSpec(file, { cache: false }));
    expect(error.message).toMatch(/broken\.yaml/);
    expect(error.reason.length).toBeGreaterThan(0);
  });

  /** Any file name: its secret is inlined exactly when the name is a .yaml/.yml/.json document outside dot-folders. */
  it('fast-check: arbitrary file names, read exactly when they name a YAML or JSON document', async () => {
    const segment = fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/).filter((s) => s !== '.' && s !== '..');
    const ext = fc.constantFrom('', '.yaml', '.yml', '.json', '.YAML', '.txt', '.env', '.md', '.yaml.bak', '.js');
    const names = fc.tuple(fc.array(segment, { maxLength: 2 }), segment, ext).map(([folders, base, e]) => [...folders, `${base}${e}`].join('/'));
    await fc.assert(
      fc.asyncProperty(names, async (name) => {
        const { file, dir } = specFile(withInfo(`  x-target:\n    $ref: ${JSON.stringify(`./${name}`)}\n`));
        const target = path.join(dir, name);
        if (existsSync(target)) return; // `a` and `a/b`: a folder already there
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, '{"secret": "SECRET-31"}\n');
        const segments = name.split('/');
        const expected = !segments.some((s) => s.startsWith('.')) && ['.yaml', '.yml', '.json'].includes(path.extname(segments.at(-1)!).toLowerCase());
        const result = await loadSpec(file, { cache: false }).then(
          (loaded) => ({ read: JSON.stringify(loaded.document).includes('SECRET-31') }),
          (error: unknown) => ({ error: error instanceof SpecErrors ? error.errors[0]! : (error as SpecError) }),
        );
        if ('read' in result) expect(result.read && expected, name).toBe(true);
        else {
          expect(expected, `${name}: ${result.error.message}`).toBe(false);
          expect(result.error.pointer).toBe('#/info/x-target');
          expect(result.error.reason).toMatch(/is refused: .*(dotfile|dot-folder|has no extension|file: a \$ref target is)/);
        }
      }),
      { numRuns: 60 },
    );
  });
});
