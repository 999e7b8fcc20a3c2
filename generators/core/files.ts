/** Writing rendered files and checking them against a tree: the only code that touches the output disk. */
import { createHash } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { compareStrings } from '../model/index.js';
import { GENERATED_PREFIX, generatedHeader, type GeneratedFile } from './target.js';

/** A file counts as generated when its first line is one of our headers. */
export function isGeneratedText(text: string): boolean {
  return text.startsWith(GENERATED_PREFIX) || text.startsWith('// Copied by gen-card-api from ');
}

async function walk(dir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await walk(full)));
    else if (entry.name.endsWith('.ts')) out.push(full);
  }
  return out;
}

/** Generated files under `dirs` (relative to `root`) that `files` no longer produces. */
export async function findOrphans(root: string, dirs: string[], files: GeneratedFile[]): Promise<string[]> {
  const produced = new Set(files.map((f) => f.path));
  const orphans: string[] = [];
  for (const dir of dirs) {
    for (const full of await walk(path.join(root, dir))) {
      const rel = path.relative(root, full).split(path.sep).join('/');
      if (produced.has(rel)) continue;
      if (isGeneratedText(await readFile(full, 'utf8'))) orphans.push(rel);
    }
  }
  return orphans.sort(compareStrings);
}

export interface WriteResult {
  written: string[];
  unchanged: string[];
  removed: string[];
  /** Files the previous run's manifest lists that this run no longer produces, kept because they changed since. */
  kept: string[];
}

/**
 * A folder the generator owns part of: `dir` relative to the output root (POSIX, `.` for the root itself), `spec` the
 * name generated headers give the spec its files come from (`model.specName`). Each gets a {@link MANIFEST}.
 */
export interface OutputDir {
  dir: string;
  spec: string;
}

/**
 * The manifest of a run, written last into each output folder: the generated header of the spec, then one line per
 * file written there, `<sha256 of its bytes>  <path relative to the folder>` (`sha256sum`'s format), sorted. The
 * next run into the folder removes a listed file it no longer produces only if the manifest names the same spec and
 * the file's bytes still hash to what is listed: never a file someone edited, another spec's, or one without a header.
 */
export const MANIFEST = 'gen-card-api.manifest';

/** Why writing generated output stopped before anything was written: each file named with why. */
export class OutputRefused extends Error {
  override readonly name = 'OutputRefused';
  constructor(readonly problems: readonly string[]) {
    super(`nothing written:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  }
}

const sha256 = (bytes: string | Buffer): string => createHash('sha256').update(bytes).digest('hex');

/** `rel` under `dir` (both POSIX), or null when it lies elsewhere. */
function under(dir: string, rel: string): string | null {
  if (dir === '.' || dir === '') return rel;
  return rel.startsWith(`${dir}/`) ? rel.slice(dir.length + 1) : null;
}

/** The manifests of `outputs` for `files` (paths relative to the output root), as generated files themselves. */
export function renderManifests(files: readonly GeneratedFile[], outputs: readonly OutputDir[]): GeneratedFile[] {
  return outputs.map(({ dir, spec }) => {
    const lines = files
      .map((f) => ({ rel: under(dir, f.path), contents: f.contents }))
      .filter((f): f is { rel: string; contents: string } => f.rel !== null && f.rel !== MANIFEST)
      .sort((a, b) => compareStrings(a.rel, b.rel))
      .map((f) => `${sha256(f.contents)}  ${f.rel}`);
    return { path: dir === '.' ? MANIFEST : `${dir}/${MANIFEST}`, contents: `${generatedHeader(spec)}\n${lines.join('\n')}\n` };
  });
}

/** The entries of a manifest that names `spec`, or none (absent, another spec's, not ours, a path that leads out). */
function parseManifest(text: string | null, spec: string): Map<string, string> {
  const entries = new Map<string, string>();
  if (text === null) return entries;
  const [header, ...lines] = text.split('\n');
  if (header !== generatedHeader(spec)) return entries;
  for (const line of lines) {
    const match = /^([0-9a-f]{64}) {2}(.+)$/.exec(line);
    if (!match) continue;
    const rel = match[2]!;
    if (rel.split('/').some((s) => s === '' || s === '.' || s === '..') || rel.includes('\\') || rel === MANIFEST) continue;
    entries.set(rel, match[1]!);
  }
  return entries;
}

/** What is at `full`, without following a symlink. */
async function entryAt(full: string): Promise<'missing' | 'symlink' | 'file' | 'dir' | 'other'> {
  try {
    const info = await lstat(full);
    return info.isSymbolicLink() ? 'symlink' : info.isFile() ? 'file' : info.isDirectory() ? 'dir' : 'other';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
}

/**
 * Why `rel` (POSIX, under `root`) cannot be written, or null: a symlink or a non-folder on the way, or a file there
 * that is not a regular file or (without `force`) not ours. `root` itself is checked too: the folders above it are
 * the user's. Reads the file's current text into `current` when it is one.
 */
async function writeProblem(root: string, rel: string, force: boolean, current: Map<string, string>): Promise<string | null> {
  const parts = rel.split('/');
  for (let i = 0; i <= parts.length; i++) {
    const full = path.join(root, ...parts.slice(0, i));
    const kind = await entryAt(full);
    if (kind === 'missing') return null;
    if (kind === 'symlink') return `${full} is a symlink: generated output is never written through one (remove it, or choose another --out)`;
    if (i < parts.length && kind !== 'dir') return `${full} is not a folder`;
    if (i === parts.length) {
      if (kind !== 'file') return `${full} exists and is not a regular file`;
      const text = await readFile(full, 'utf8');
      current.set(rel, text);
      if (!force && !isGeneratedText(text)) return `${full} exists and was not written by gen-card-api (it has no generated header); --force replaces it`;
    }
  }
  return null;
}

let temporaries = 0;

/** Writes `contents` to `full` through a new file in the same folder renamed over it: never half a file, never through a symlink. */
async function writeAtomic(root: string, rel: string, contents: string): Promise<void> {
  let dir = root;
  await mkdir(root, { recursive: true });
  for (const part of rel.split('/').slice(0, -1)) {
    dir = path.join(dir, part);
    await mkdir(dir).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    // Checked again after creating: a symlink put there since the first check is refused, not followed.
    if ((await entryAt(dir)) !== 'dir') throw new OutputRefused([`${dir} is not a folder (or is a symlink)`]);
  }
  const full = path.join(root, ...rel.split('/'));
  const temporary = path.join(dir, `.${path.basename(full)}.${process.pid}.${++temporaries}.tmp`);
  // 'wx' creates the file or fails: it never opens something already there, a symlink included.
  await writeFile(temporary, contents, { flag: 'wx' });
  try {
    await rename(temporary, full);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/**
 * The one writer of generated output (every target, with or without `--out`). Writes `files` under `root` (only
 * those whose bytes differ) and each output folder's {@link MANIFEST}; removes the files the previous manifest lists
 * that this run no longer produces, when they are still exactly what it wrote. Refuses, before writing anything, a
 * symlink anywhere from `root` down, and a file there that is not ours (no generated header) unless `force`.
 */
export async function writeFiles(root: string, files: readonly GeneratedFile[], outputs: readonly OutputDir[] = [], options: { force?: boolean } = {}): Promise<WriteResult> {
  const all = [...files, ...renderManifests(files, outputs)];
  const current = new Map<string, string>();
  const problems: string[] = [];
  for (const file of all) {
    const problem = await writeProblem(root, file.path, options.force === true, current);
    if (problem !== null) problems.push(problem);
  }
  if (problems.length > 0) throw new OutputRefused([...new Set(problems)]);

  const previous = outputs.map((output) => {
    const manifest = output.dir === '.' ? MANIFEST : `${output.dir}/${MANIFEST}`;
    return { output, entries: parseManifest(current.get(manifest) ?? null, output.spec) };
  });
  const result: WriteResult = { written: [], unchanged: [], removed: [], kept: [] };
  for (const file of all) {
    if (current.get(file.path) === file.contents) {
      if (!file.path.endsWith(MANIFEST)) result.unchanged.push(file.path);
      continue;
    }
    await writeAtomic(root, file.path, file.contents);
    if (!file.path.endsWith(MANIFEST)) result.written.push(file.path);
  }
  const produced = new Set(files.map((f) => f.path));
  for (const { output, entries } of previous) {
    for (const [rel, hash] of [...entries].sort(([a], [b]) => compareStrings(a, b))) {
      const stale = output.dir === '.' ? rel : `${output.dir}/${rel}`;
      if (produced.has(stale)) continue;
      const seen = new Map<string, string>();
      const problem = await writeProblem(root, stale, false, seen);
      const text = seen.get(stale);
      if (text === undefined) continue;
      if (problem === null && sha256(text) === hash) {
        await rm(path.join(root, ...stale.split('/')));
        result.removed.push(stale);
      } else result.kept.push(stale);
    }
  }
  return result;
}

export interface CheckResult {
  changed: Array<{ path: string; diff: string }>;
  missing: string[];
  orphaned: string[];
  ok: boolean;
}

/** A one-hunk unified diff: common prefix and suffix lines are context, the middle is replaced. */
export function unifiedDiff(file: string, before: string, after: string, context = 3): string {
  const a = before.split('\n');
  const b = after.split('\n');
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const from = Math.max(0, start - context);
  const toA = Math.min(a.length, endA + context);
  const toB = Math.min(b.length, endB + context);
  const lines = [
    `--- a/${file} (on disk)`,
    `+++ b/${file} (generated)`,
    `@@ -${from + 1},${toA - from} +${from + 1},${toB - from} @@`,
    ...a.slice(from, start).map((l) => ` ${l}`),
    ...a.slice(start, endA).map((l) => `-${l}`),
    ...b.slice(start, endB).map((l) => `+${l}`),
    ...a.slice(endA, toA).map((l) => ` ${l}`),
  ];
  return lines.join('\n');
}

/** Compares rendered files (and the manifests `writeFiles` would write) with the tree under `root`; reports everything before deciding. */
export async function checkFiles(root: string, rendered: readonly GeneratedFile[], outputs: readonly OutputDir[]): Promise<CheckResult> {
  const result: CheckResult = { changed: [], missing: [], orphaned: [], ok: true };
  const files = [...rendered, ...renderManifests(rendered, outputs)];
  const dirs = outputs.map((o) => o.dir);
  for (const file of [...files].sort((x, y) => compareStrings(x.path, y.path))) {
    const current = await readFile(path.join(root, file.path), 'utf8').catch(() => null);
    if (current === null) result.missing.push(file.path);
    else if (current !== file.contents) result.changed.push({ path: file.path, diff: unifiedDiff(file.path, current, file.contents) });
  }
  result.orphaned = await findOrphans(root, dirs, files);
  result.ok = result.changed.length === 0 && result.missing.length === 0 && result.orphaned.length === 0;
  return result;
}
