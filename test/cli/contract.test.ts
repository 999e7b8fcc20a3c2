/**
 * The one CLI contract (packages/cli/README.md, "Exit codes"), over every command the program has, nested ones
 * included, so a new command is held to it without anyone listing it here: `--help` exits 0; an unknown flag
 * exits 2 with the error and one hint line (at most 6 lines); a spec that does not exist exits 2. Runs `main` in
 * process (one module load for all cases); test/generators/cli.test.ts and test/cli/fail-fast.test.ts run the real bin.
 */
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Command } from 'commander';
import { buildProgram, main } from '../../packages/cli/src/main.js';
import { tempDir } from '../helpers/spec.js';

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `gen-card-api <args>` in this process, capturing what it writes and the exit code it sets. */
async function run(args: string[]): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const out = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((stdout += String(chunk)), true));
  const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((stderr += String(chunk)), true));
  // vitest routes console.* to its reporter, not through the streams: capture them too.
  const format = (args: unknown[]): string => `${args.map(String).join(' ')}\n`;
  const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void (stdout += format(args)));
  const error = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void (stderr += format(args)));
  const before = process.exitCode;
  process.exitCode = undefined;
  try {
    await main(['node', 'gen-card-api', ...args]);
    return { code: Number(process.exitCode ?? 0), stdout, stderr };
  } finally {
    process.exitCode = before;
    for (const spy of [out, err, log, error]) spy.mockRestore();
  }
}

/** Every command path of the program: `['client']`, `['diff']`, ... and nested ones. */
function commandPaths(command: Command, prefix: string[] = []): Array<{ path: string[]; command: Command }> {
  return command.commands
    .filter((c) => c.name() !== 'help')
    .flatMap((c) => [{ path: [...prefix, c.name()], command: c }, ...commandPaths(c, [...prefix, c.name()])]);
}

const COMMANDS = commandPaths(buildProgram());
const tmp = tempDir('cli-contract');
afterEach(() => vi.restoreAllMocks());

describe('the CLI contract, every command', () => {
  it('knows every command the README lists', () => {
    const names = COMMANDS.map((c) => c.path.join(' '));
    for (const expected of ['client', 'types', 'webhooks', 'all', 'server', 'check', 'lint', 'bundle', 'sandbox', 'diff', 'verify', 'completion']) expect(names).toContain(expected);
  });

  it.each(COMMANDS.map((c) => [c.path.join(' '), c.path] as const))('%s --help: exit 0, usage on stdout', async (_name, commandPath) => {
    const result = await run([...commandPath, '--help']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(/Usage:/);
  });

  it.each(COMMANDS.map((c) => [c.path.join(' '), c.path] as const))('%s --no-such-flag: exit 2, the error and one hint, at most 6 lines', async (name, commandPath) => {
    const result = await run([...commandPath, '--no-such-flag']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trimEnd().split('\n');
    expect(lines.length, result.stderr).toBeLessThanOrEqual(6);
    expect(lines[0]).toMatch(new RegExp(`^gen-card-api ${name}: unknown option '--no-such-flag'`, 'i'));
    expect(lines.at(-1)).toBe(`run 'gen-card-api ${name} --help' for usage`);
  });

  it('an unknown command: exit 2, the error and the hint', async () => {
    const result = await run(['clinet']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^gen-card-api: unknown command 'clinet'/);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe("run 'gen-card-api --help' for usage");
  });

  it('--version and -v: exit 0, the version alone', async () => {
    for (const flag of ['--version', '-v']) {
      const result = await run([flag]);
      expect(result.code).toBe(0);
      expect(result.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    }
  });

  const missing = path.join(tmp.dir, 'no-such-spec.yaml');
  const specCases: Array<[string, string[]]> = [
    ['client', ['client', missing, '--out', path.join(tmp.dir, 'client')]],
    ['types', ['types', missing, '--out', path.join(tmp.dir, 'types')]],
    ['webhooks', ['webhooks', missing, '--out', path.join(tmp.dir, 'webhooks')]],
    ['all', ['all', missing, '--out', path.join(tmp.dir, 'all')]],
    ['server', ['server', missing, '--out', path.join(tmp.dir, 'server')]],
    ['check', ['check', missing]],
    ['lint', ['lint', missing]],
    ['bundle', ['bundle', missing]],
    ['diff', ['diff', missing, missing]],
  ];

  it('covers every command that reads a spec', () => {
    const readers = COMMANDS.filter((c) => c.command.options.some((o) => o.long === '--spec') || c.path[0] === 'diff').map((c) => c.path.join(' '));
    expect(readers.filter((name) => name !== 'verify').sort()).toEqual(specCases.map(([name]) => name).sort());
  });

  it.each(specCases)('%s with a spec file that does not exist: exit 2, the file named', async (_name, args) => {
    const result = await run(args);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stderr).toContain('no-such-spec.yaml');
    expect(result.stderr).toMatch(/not found|does not exist|no such file/i);
  });

  it('verify against a port where nothing listens: exit 2 (could not run), not 1 (a check failed)', async () => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const result = await run(['verify', '--base-url', `http://127.0.0.1:${port}/api/v1`, '--token', 'ws_sk_nothing', '--format', 'json']);
    expect(result.code, result.stderr).toBe(2);
    expect(result.stdout).toContain('"stopped"');
    expect(`${result.stdout}${result.stderr}`).not.toContain('ws_sk_nothing');
  });

  it('a usage error raised by a command itself (two different specs): exit 2 and the hint', async () => {
    const result = await run(['client', 'a.yaml', '--spec', 'b.yaml', '--out', tmp.dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^gen-card-api client: two specs given/);
    expect(result.stderr.trimEnd().split('\n').at(-1)).toBe("run 'gen-card-api client --help' for usage");
  });
});
