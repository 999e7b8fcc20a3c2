/**
 * One side of a diff: a spec file, or a git revision with a path (`origin/main:spec/openapi.yaml`). A revision's
 * spec folder is materialised from `git archive` into a temporary folder, so that a spec split across files with
 * relative `$ref`s loads exactly as it would from a checkout; both sides then go through the generators' loader
 * and model (bundled, validated, `$ref`s kept and resolved on demand).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildModel, loadSpec, SpecError, SpecErrors, type ApiModel } from '../model/index.js';
import { isRemote, STDIN } from '../model/input-policy.js';

export interface Side {
  /** As given on the command line. */
  label: string;
  /** A file on disk, or null for a git revision. */
  file: string | null;
  model: ApiModel;
}

function git(args: string[], cwd: string, input?: Buffer): { ok: boolean; stdout: Buffer; stderr: string } {
  const r = spawnSync('git', args, { cwd, input, maxBuffer: 512 * 1024 * 1024 });
  return { ok: r.status === 0, stdout: r.stdout ?? Buffer.alloc(0), stderr: (r.stderr ?? Buffer.alloc(0)).toString().trim() || (r.error ? String(r.error) : '') };
}

function relabel(error: unknown, from: string, to: string): unknown {
  const fix = (e: SpecError) => new SpecError(e.file.startsWith(from) ? `${to}${e.file.slice(from.length).replace(/\\/g, '/')}` : e.file, e.pointer, e.reason, e.line, e.column);
  if (error instanceof SpecErrors) return new SpecErrors(error.errors.map(fix));
  if (error instanceof SpecError) return fix(error);
  return error;
}

/** `rev:path` when `spec` is not an existing file and has that shape. */
export function parseRevSpec(spec: string): { rev: string; file: string } | null {
  if (existsSync(spec)) return null;
  const m = /^([^:]+):(.+)$/.exec(spec);
  if (!m || /^[A-Za-z]$/.test(m[1]!)) return null;
  return { rev: m[1]!, file: m[2]! };
}

export async function loadSide(spec: string, cwd = process.cwd()): Promise<Side> {
  // A URL or stdin is no file and no revision: the loader reads it (under its input policy) as it is.
  if (spec === STDIN || isRemote(spec)) return { label: spec, file: null, model: buildModel(await loadSpec(spec)) };
  const rev = parseRevSpec(spec);
  if (!rev) {
    const spec2 = await loadSpec(path.resolve(cwd, spec));
    return { label: spec, file: spec2.file, model: buildModel(spec2) };
  }
  const top = git(['rev-parse', '--show-toplevel'], cwd);
  if (!top.ok) throw new SpecError(spec, '#', `no file ${spec}, and not inside a git repository to read it as <revision>:<path> (${top.stderr})`);
  const root = top.stdout.toString().trim();
  const rel = (rev.file.startsWith('./') || rev.file.startsWith('../') ? path.relative(root, path.resolve(cwd, rev.file)) : rev.file).split(path.sep).join('/');
  const exists = git(['cat-file', '-e', `${rev.rev}:${rel}`], root);
  if (!exists.ok) throw new SpecError(spec, '#', `git cannot read ${rel} at revision ${rev.rev}: ${exists.stderr || 'not found'}`);
  const dir = path.posix.dirname(rel);
  const archive = git(['archive', '--format=tar', rev.rev, '--', dir === '.' ? rel : dir], root);
  if (!archive.ok) throw new SpecError(spec, '#', `git archive failed: ${archive.stderr}`);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'card-api-diff-'));
  try {
    const untar = spawnSync('tar', ['-x', '-C', tmp], { input: archive.stdout, maxBuffer: 64 * 1024 * 1024 });
    if (untar.status !== 0) throw new SpecError(spec, '#', `cannot unpack the revision: ${untar.stderr?.toString() ?? untar.error}`);
    const file = path.join(tmp, rel);
    try {
      const loaded = await loadSpec(file);
      const model = buildModel(loaded);
      return { label: spec, file: null, model };
    } catch (error) {
      throw relabel(error, `${tmp}${path.sep}`, `${rev.rev}:`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
