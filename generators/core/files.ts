/** Writing rendered files and checking them against a tree: the only code that touches the output disk. */
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { compareStrings } from '../model/index.js';
import { GENERATED_PREFIX, type GeneratedFile } from './target.js';

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
}

/** Writes files under `root` (only those whose bytes differ) and removes generated orphans under `cleanDirs`. */
export async function writeFiles(root: string, files: GeneratedFile[], cleanDirs: string[] = []): Promise<WriteResult> {
  const result: WriteResult = { written: [], unchanged: [], removed: [] };
  for (const file of files) {
    const full = path.join(root, file.path);
    const current = await readFile(full, 'utf8').catch(() => null);
    if (current === file.contents) {
      result.unchanged.push(file.path);
      continue;
    }
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, file.contents);
    result.written.push(file.path);
  }
  for (const orphan of await findOrphans(root, cleanDirs, files)) {
    await rm(path.join(root, orphan));
    result.removed.push(orphan);
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

/** Compares rendered files with the tree under `root`; reports everything before deciding. */
export async function checkFiles(root: string, files: GeneratedFile[], dirs: string[]): Promise<CheckResult> {
  const result: CheckResult = { changed: [], missing: [], orphaned: [], ok: true };
  for (const file of [...files].sort((x, y) => compareStrings(x.path, y.path))) {
    const current = await readFile(path.join(root, file.path), 'utf8').catch(() => null);
    if (current === null) result.missing.push(file.path);
    else if (current !== file.contents) result.changed.push({ path: file.path, diff: unifiedDiff(file.path, current, file.contents) });
  }
  result.orphaned = await findOrphans(root, dirs, files);
  result.ok = result.changed.length === 0 && result.missing.length === 0 && result.orphaned.length === 0;
  return result;
}
