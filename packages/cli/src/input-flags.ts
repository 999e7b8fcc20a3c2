/**
 * The flags that widen what the spec loader may read (generators/model/load.ts), one definition for every command
 * that reads a spec: `--allow-remote-refs`, `--allow-refs-outside <dir>` and `--allow-ref-file <file>`.
 */
import type { Command } from 'commander';
import { setInputPolicy } from '../../../generators/model/input-policy.js';

export interface InputFlags {
  allowRemoteRefs?: boolean;
  allowRefsOutside?: string[];
  allowRefFile?: string[];
}

const repeat = (value: string, values: string[] = []): string[] => [...values, value];

/** Adds the loader's flags to `command`; `what` names what a URL may be (a spec, a side of a diff). */
export function withInputFlags(command: Command, what = 'a spec'): Command {
  return command
    .option('--allow-remote-refs', `fetch ${what} given as a URL and http(s) $refs (10 s and 32 MiB at most, redirects only within the same scheme)`)
    .option('--allow-refs-outside <dir>', "let local $refs reach <dir> besides the spec's own folder (repeatable; a spec read from stdin reaches only these)", repeat)
    .option('--allow-ref-file <file>', 'let a local $ref read <file> although it is not a .yaml/.yml/.json document by name (a dotfile, under a dot-folder, another extension or none); it is inlined as text (repeatable)', repeat);
}

/** Sets the process's input policy from the flags (before anything is loaded). */
export function applyInputFlags(opts: InputFlags): void {
  setInputPolicy({ allowRemoteRefs: opts.allowRemoteRefs === true, allowRefsOutside: opts.allowRefsOutside ?? [], allowRefFiles: opts.allowRefFile ?? [] });
}
