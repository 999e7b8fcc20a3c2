/**
 * `gen-card-api completion bash|zsh|fish`, run by the real shells: the scripts parse, and completing a command
 * name, an option and an option's fixed values gives what the program defines. zsh is driven with its completion
 * builtins stubbed (a real zsh completion needs a terminal), bash and fish through their own completion entry points.
 * The shells are Debian packages; .ci/run installs them, and under CI a missing shell fails the test.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { completionScript } from '../../packages/cli/src/commands/completion.js';
import { buildProgram } from '../../packages/cli/src/main.js';
import { tempDir } from '../helpers/spec.js';

const tmp = tempDir('completion');
afterAll(tmp.cleanup);

function shell(name: string): string | null {
  const found = ['/usr/bin', '/bin', '/usr/local/bin'].map((dir) => path.join(dir, name)).find((file) => existsSync(file));
  if (found === undefined && process.env['CI']) throw new Error(`${name} is not installed (.ci/run installs it)`);
  return found ?? null;
}

function script(kind: 'bash' | 'zsh' | 'fish'): string {
  const file = path.join(tmp.dir, `gen-card-api.${kind}`);
  writeFileSync(file, completionScript(buildProgram(), kind));
  return file;
}

describe('gen-card-api completion', () => {
  it('bash: commands, options, fixed values, files after a spec option', () => {
    const bash = shell('bash')!;
    const file = script('bash');
    const complete = (...words: string[]): string[] =>
      execFileSync(bash, ['-c', `source "$0"; COMP_WORDS=("$@"); COMP_CWORD=$(( \${#COMP_WORDS[@]} - 1 )); _gen_card_api; printf '%s\\n' "\${COMPREPLY[@]}"`, file, 'gen-card-api', ...words], { encoding: 'utf8', cwd: tmp.dir })
        .split('\n')
        .filter(Boolean);
    expect(complete('cl')).toEqual(['client']);
    expect(complete('diff', '--fo')).toEqual(['--format']);
    expect(complete('diff', '--format', '')).toEqual(['text', 'markdown', 'json', 'github', 'changelog']);
    expect(complete('completion', '')).toEqual(expect.arrayContaining(['bash', 'zsh', 'fish']));
    expect(complete('client', '--spec', 'gen-card-api.b')).toEqual(['gen-card-api.bash']);
  });

  it.runIf(shell('zsh') !== null)('zsh: parses; _arguments gets every option with its values, _describe every command', () => {
    const file = script('zsh');
    execFileSync(shell('zsh')!, ['-n', file]);
    const run = (words: string[]): string =>
      execFileSync(
        shell('zsh')!,
        ['-c', `source "$1"; _arguments() { print -rl -- "$@"; }; _describe() { print -rl -- "\${(@P)2}"; }; words=(gen-card-api "\${@:2}"); CURRENT=$#words; _gen_card_api; true`, 'zsh', file, ...words],
        { encoding: 'utf8' },
      );
    const diff = run(['diff', '--f']);
    expect(diff).toContain('--format[output\\: text for people');
    expect(diff).toContain(':value:(text markdown json github changelog)');
    const top = run(['']);
    expect(top).toMatch(/^-s$/m);
    // Stubbed _arguments never sets $state, so the command list is checked through the script's text.
    expect(readFileSync(file, 'utf8')).toContain("'client:generate a self-contained typed client");
  });

  it.runIf(shell('fish') !== null)('fish: parses, and `complete -C` answers from it', () => {
    const fish = shell('fish')!;
    const file = script('fish');
    execFileSync(fish, ['-n', file]);
    const complete = (line: string): string[] =>
      spawnSync(fish, ['-c', `source $argv[1]; complete -C $argv[2]`, file, line], { encoding: 'utf8' })
        .stdout.split('\n')
        .filter(Boolean)
        .map((row) => row.split('\t')[0]!);
    expect(complete('gen-card-api cl')).toEqual(['client']);
    expect(complete('gen-card-api diff --format ').sort()).toEqual(['changelog', 'github', 'json', 'markdown', 'text']);
    expect(complete('gen-card-api completion ').sort()).toEqual(['bash', 'fish', 'zsh']);
  });
});
