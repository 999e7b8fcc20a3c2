/**
 * One side of a diff: a spec file, an http(s) URL (with `--allow-remote-refs`), `-` for stdin, or a git revision
 * with a path (`origin/main:spec/openapi.yaml`). A revision's
 * spec is materialised into a temporary folder with every file it references (`git show` of each, following
 * relative `$ref`s from file to file), so that a spec split across files loads exactly as it would from a checkout;
 * then both sides go through the generators' loader (read, parse, bundle), without the 3.1 validation or the model:
 * any OpenAPI 3.0 or 3.1 document can be compared.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { SpecError, SpecErrors, type JsonObject } from '../model/index.js';
import { isRemote, STDIN } from '../model/input-policy.js';
import { loadOpenApiDocument } from '../model/load.js';
import { documentOf, type DiffDoc } from './document.js';

export interface Side {
  /** As given on the command line. */
  label: string;
  /** A file on disk, or null for a git revision. */
  file: string | null;
  /** The bundled document. */
  model: { document: JsonObject };
  doc: DiffDoc;
}

/** Bounds on what a revision side may pull out of git. */
const MAX_FILES = 1000;
const MAX_BYTES = 256 * 1024 * 1024;

function git(args: string[], cwd: string): { ok: boolean; stdout: Buffer; stderr: string } {
  const r = spawnSync('git', args, { cwd, maxBuffer: MAX_BYTES });
  return { ok: r.status === 0, stdout: r.stdout ?? Buffer.alloc(0), stderr: (r.stderr ?? Buffer.alloc(0)).toString().trim() || (r.error ? String(r.error) : '') };
}

function relabel(error: unknown, from: string, to: string): unknown {
  const fix = (e: SpecError) => {
    const file = e.file.replace(/\\/g, '/');
    const at = file.indexOf(from.replace(/\\/g, '/'));
    return new SpecError(at >= 0 ? `${to}${file.slice(at + from.length)}` : e.file, e.pointer, e.reason, e.line, e.column);
  };
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

/** Relative files a parsed document references (`$ref: './schemas/card.yaml#/Card'`), repository-relative. */
function referencedFiles(value: unknown, from: string, out: Set<string>, depth = 0): void {
  if (depth > 200 || value === null || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) referencedFiles(v, from, out, depth + 1);
    return;
  }
  for (const [k, v] of Object.entries(value)) {
    if (k === '$ref' && typeof v === 'string') {
      const target = decodeURIComponent(v.split('#')[0]!);
      if (target !== '' && !/^[a-z][a-z0-9+.-]*:/i.test(target)) out.add(path.posix.normalize(path.posix.join(path.posix.dirname(from), target)));
    } else referencedFiles(v, from, out, depth + 1);
  }
}

/** Writes `rel` and every file it references, as of `rev`, under `dir`. */
function materialise(spec: string, root: string, rev: string, rel: string, dir: string): void {
  const queue = [rel];
  const done = new Set<string>();
  let bytes = 0;
  while (queue.length > 0) {
    const file = queue.shift()!;
    if (done.has(file)) continue;
    done.add(file);
    if (file.startsWith('../') || path.posix.isAbsolute(file)) throw new SpecError(spec, '#', `${file} is referenced but lies outside the repository`);
    if (done.size > MAX_FILES) throw new SpecError(spec, '#', `the spec references more than ${MAX_FILES} files`);
    const shown = git(['show', `${rev}:${file}`], root);
    if (!shown.ok) throw new SpecError(`${rev}:${file}`, '#', `git cannot read ${file} at revision ${rev}: ${shown.stderr || 'not found'}`);
    bytes += shown.stdout.length;
    if (bytes > MAX_BYTES) throw new SpecError(spec, '#', `the spec and the files it references exceed ${MAX_BYTES / 1024 / 1024} MiB`);
    const target = path.join(dir, ...file.split('/'));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, shown.stdout);
    let parsed: unknown;
    try {
      parsed = parse(shown.stdout.toString('utf8'), { maxAliasCount: 1000 });
    } catch {
      continue; // the loader reports the syntax error with its line
    }
    const refs = new Set<string>();
    referencedFiles(parsed, file, refs);
    for (const r of [...refs].sort()) if (!done.has(r)) queue.push(r);
  }
}

export async function loadSide(spec: string, cwd = process.cwd()): Promise<Side> {
  // A URL or stdin is no file and no revision: the loader reads it (under its input policy) as it is.
  if (spec === STDIN || isRemote(spec)) {
    const loaded = await loadOpenApiDocument(spec);
    return { label: spec, file: null, model: loaded, doc: documentOf(spec, loaded.document) };
  }
  const rev = parseRevSpec(spec);
  if (!rev) {
    const loaded = await loadOpenApiDocument(path.resolve(cwd, spec));
    return { label: spec, file: loaded.file, model: loaded, doc: documentOf(spec, loaded.document) };
  }
  const top = git(['rev-parse', '--show-toplevel'], cwd);
  if (!top.ok) throw new SpecError(spec, '#', `no file ${spec}, and not inside a git repository to read it as <revision>:<path> (${top.stderr})`);
  const root = top.stdout.toString().trim();
  const rel = (rev.file.startsWith('./') || rev.file.startsWith('../') ? path.relative(root, path.resolve(cwd, rev.file)) : rev.file).split(path.sep).join('/');
  const exists = git(['cat-file', '-e', `${rev.rev}:${rel}`], root);
  if (!exists.ok) throw new SpecError(spec, '#', `git cannot read ${rel} at revision ${rev.rev}: ${exists.stderr || 'not found'}`);
  const tmp = mkdtempSync(path.join(os.tmpdir(), 'card-api-diff-'));
  try {
    materialise(spec, root, rev.rev, rel, tmp);
    try {
      const loaded = await loadOpenApiDocument(path.join(tmp, ...rel.split('/')));
      return { label: spec, file: null, model: loaded, doc: documentOf(spec, loaded.document) };
    } catch (error) {
      throw relabel(error, `${tmp}${path.sep}`, `${rev.rev}:`);
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
