/**
 * Loads a spec once per run: read, parse, bundle (external `$ref`s pulled in, internal ones kept so that
 * schema names survive), validate against the OpenAPI 3.1 schema. Results are cached by the hash of the
 * root document's bytes, so a CLI run that renders several targets parses the spec once.
 *
 * A spec is untrusted input, and every way the toolkit reads one (generation, `check`, `bundle`, `lint`, `diff`,
 * `verify`) goes through the {@link SpecResolver} here, Redocly's resolver with a policy:
 * - the spec is a path, an http(s) URL (only with `allowRemoteRefs`) or `-` for stdin;
 * - a local `$ref` resolves only inside the root document's folder (symlinks followed, so they cannot lead out),
 *   or inside a folder the caller allows; never to a device, a FIFO or anything but a regular file; a spec read
 *   from stdin has no folder, so it resolves local `$ref`s only inside the folders the caller allows;
 * - a local `$ref` target is a YAML or JSON document by name ({@link refFileProblem}): no dotfile (`.env`), nothing
 *   under a dot-folder (`.git/`, `.ssh/`), no other extension (`notes.txt`) and no file without one, unless the
 *   caller allows that file by name (`--allow-ref-file`). Redocly would inline any other file as a string;
 *   that is how a `.env` beside a spec ended up in `bundle`'s output and the generated server's `spec.gen.ts`;
 * - a remote `$ref` (or a spec given as a URL) is fetched only with `allowRemoteRefs`, with a timeout and a size
 *   cap, following redirects only within the same scheme;
 * - the bytes read, the nesting depth and the nodes YAML aliases add are bounded ({@link DEFAULT_LIMITS}).
 * Each refusal is a `SpecError` with the file, the JSON pointer of the `$ref` and the reason.
 */
import { createHash } from 'node:crypto';
import { constants as fsConstants, createReadStream } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import type { Document, NormalizedProblem } from '@redocly/openapi-core';
import { ASSET_ROOT } from '../core/assets.js';
import { SpecError, SpecErrors, pointer as pointerOf } from './errors.js';
import { inputPolicy, isRemote, STDIN, type InputLimits, type InputPolicy } from './input-policy.js';
import { bundlerUnsafeKeyPointers, bundlerUnsafeKeyReason } from './names.js';
import { validateOpenApi31 } from './openapi31-validator.js';
import { BaseResolver, bundle, createConfig, parseYaml, Source, YamlParseError } from './redocly.js';

export type JsonObject = Record<string, unknown>;

export interface LoadedSpec {
  /** Absolute path of the root file, its URL, or `<cwd>/<stdin>` for a spec read from stdin. */
  file: string;
  /** The bundled OpenAPI document. Treat as read-only. */
  document: JsonObject;
  /** SHA-256 of the root document's bytes. */
  hash: string;
}

export { DEFAULT_LIMITS, STDIN, inputPolicy, isRemote, setInputPolicy, type InputLimits, type InputPolicy, type InputPolicyOptions } from './input-policy.js';

const STDIN_NAME = '<stdin>';

/** The folder of the documents that ship with the toolkit. */
const OWN_SPECS = path.join(ASSET_ROOT, 'spec');

const cache = new Map<string, LoadedSpec>();

/** A URL as messages show it: without credentials or query (either may hold a token). */
function displayUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}${u.search ? '?…' : ''}`;
  } catch {
    return url;
  }
}

/** A file as messages show it: relative to the working directory when it lies below it, else absolute; a URL without credentials. */
export function displayPath(file: string): string {
  if (isRemote(file)) return displayUrl(file);
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel;
}

const MiB = (bytes: number) => (bytes >= 1024 * 1024 ? `${+(bytes / 1024 / 1024).toFixed(2)} MiB` : bytes >= 1024 ? `${+(bytes / 1024).toFixed(2)} KiB` : `${bytes} bytes`);

/** The bytes a load may still read: every reader takes from it as bytes arrive, so parallel reads share one cap. */
class Budget {
  left: number;
  constructor(readonly limit: number) {
    this.left = limit;
  }

  /** Takes `bytes` of the budget; past it, fails naming `name` (and its `size`, when known). */
  take(bytes: number, name: string, size?: number): void {
    if (bytes > this.left) {
      throw fail(`${name}${size === undefined ? '' : ` (${MiB(size)})`} goes past ${MiB(this.limit)}, the limit on a spec and the files it references together`, 'limit');
    }
    this.left -= bytes;
  }
}

/** Whether `file` is `dir` or lies below it (both absolute and normalised). */
function inside(dir: string, file: string): boolean {
  const rel = path.relative(dir, file);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The extensions of a document a local `$ref` may name without `--allow-ref-file`. */
export const REF_DOCUMENT_EXTENSIONS: readonly string[] = ['.yaml', '.yml', '.json'];

/**
 * Why a local `$ref` target is not a YAML or JSON document by its name, or null. `rel` is its path relative to the
 * allowed folder that holds it: the folders above that one are the user's (a spec may live under `~/.config/`).
 * A file without an extension is refused too: `credentials`, `id_rsa` and `secrets` have none.
 */
export function refFileProblem(rel: string): string | null {
  const segments = rel.split(/[\\/]/).filter((s) => s !== '');
  const name = segments.pop() ?? '';
  const dotFolder = segments.find((s) => s.startsWith('.'));
  if (dotFolder !== undefined) return `is under the dot-folder ${dotFolder}${path.sep}`;
  if (name.startsWith('.')) return 'is a dotfile';
  const ext = path.extname(name).toLowerCase();
  if (ext === '') return 'has no extension';
  if (!REF_DOCUMENT_EXTENSIONS.includes(ext)) return `is a ${ext} file`;
  return null;
}

/** A refusal or a failed read: the resolver throws it; Redocly turns it into an unresolved-ref problem at the `$ref`. */
class InputError extends Error {
  override readonly name = 'InputError';
  constructor(
    readonly reason: string,
    readonly kind: 'refused' | 'limit' | 'missing' | 'unreadable',
    readonly pointer = '#',
  ) {
    super(reason);
  }
}

/**
 * Every `InputError`'s message and kind: Redocly keeps only the message of an error at a `$ref`, and this is how
 * {@link refProblemReason} recognises one of ours in it.
 */
const inputFailures = new Map<string, InputError['kind']>();

function fail(reason: string, kind: InputError['kind'], pointer?: string): InputError {
  inputFailures.set(reason, kind);
  return new InputError(reason, kind, pointer);
}

/** The shared byte budget and the raw reads of one load (its forks read nothing twice). */
interface Reads {
  budget: Budget;
  sources: Map<string, Promise<{ bytes: Buffer; source: Source }>>;
}

let stdinRead: Promise<Buffer> | undefined;

/** Stdin, read once per process (a second load of `-` sees the same bytes) and never past the budget. */
function readStdin(budget: Budget): Promise<Buffer> {
  stdinRead ??= readBounded(process.stdin, budget, STDIN_NAME);
  return stdinRead;
}

/** A stream's bytes up to the budget; past it the stream is destroyed and the read fails. */
function readBounded(stream: NodeJS.ReadableStream & { destroy?: () => void }, budget: Budget, name: string): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer | string) => {
      const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      try {
        budget.take(buffer.length, name);
      } catch (error) {
        stream.removeAllListeners('data');
        stream.destroy?.();
        reject(error);
        return;
      }
      chunks.push(buffer);
    });
    stream.on('end', () => resolve(Buffer.concat(chunks)));
    stream.on('error', (error: NodeJS.ErrnoException) => reject(fail(`cannot read ${name} (${error.code ?? error.message})`, 'unreadable')));
  });
}

const fileKind = (s: import('node:fs').Stats): string =>
  s.isDirectory() ? 'a folder' : s.isCharacterDevice() ? 'a character device' : s.isBlockDevice() ? 'a block device' : s.isFIFO() ? 'a FIFO' : s.isSocket() ? 'a socket' : 'not a regular file';

/**
 * A local file's bytes, never more than the budget: opened without blocking (a FIFO cannot hang the open), checked
 * to be a regular file on the open descriptor (no race with a swapped path), then read up to the cap, not up to
 * the size it claims (files under /proc claim 0 bytes). The root document may also be a FIFO (`lint <(...)`),
 * read like stdin.
 */
async function readLocal(file: string, budget: Budget, root: boolean, name = displayPath(file)): Promise<Buffer> {
  let handle: FileHandle;
  try {
    // A `$ref` target arrives as its real path: a symlink put there since is refused (O_NOFOLLOW), not followed.
    handle = await open(file, fsConstants.O_RDONLY | fsConstants.O_NONBLOCK | (root ? 0 : fsConstants.O_NOFOLLOW));
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw fail(root ? 'file not found' : `${name} does not exist`, 'missing');
    throw fail(root ? `cannot read the file (${code ?? String(error)})` : `cannot read ${name} (${code ?? String(error)})`, 'unreadable');
  }
  try {
    const info = await handle.stat();
    if (root && info.isFIFO()) return await readBounded(createReadStream(file), budget, name);
    if (!info.isFile()) throw fail(`${name} is ${fileKind(info)}, not a regular file`, 'refused');
    // The size it claims is reserved up front (a file past the budget is refused unread); growth is taken as read.
    budget.take(info.size, name, info.size);
    let reserved = info.size;
    let buffer = Buffer.alloc(info.size + 1);
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        const larger = Buffer.alloc(Math.min(length + budget.left + 1, Math.max(2 * length, 64 * 1024)));
        buffer.copy(larger, 0, 0, length);
        buffer = larger;
      }
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) {
        budget.left += reserved - length;
        return buffer.subarray(0, length);
      }
      length += bytesRead;
      if (length > reserved) {
        budget.take(length - reserved, name);
        reserved = length;
      }
    }
  } finally {
    await handle.close().catch(() => undefined);
  }
}

/**
 * A remote document's bytes: only http(s), within `remoteTimeoutMs` for everything (connection, headers, body),
 * never more than the budget (a larger Content-Length is refused unread; a body is cut at the cap), redirects
 * followed only to the same scheme and at most `maxRedirects` times.
 */
async function readRemote(url: string, limits: InputLimits, budget: Budget): Promise<{ bytes: Buffer; mimeType?: string }> {
  const name = displayUrl(url);
  const signal = AbortSignal.timeout(limits.remoteTimeoutMs);
  let current = new URL(url);
  try {
    for (let redirects = 0; ; redirects++) {
      const response = await fetch(current, { redirect: 'manual', signal, headers: { accept: 'application/yaml, application/json;q=0.9, */*;q=0.1' } });
      if (response.status >= 300 && response.status < 400 && response.headers.has('location')) {
        await response.body?.cancel().catch(() => undefined);
        const next = new URL(response.headers.get('location')!, current);
        if (next.protocol !== current.protocol) throw fail(`${name} redirects to ${next.protocol} (redirects are followed only within ${current.protocol})`, 'refused');
        if (redirects >= limits.maxRedirects) throw fail(`${name} redirects more than ${limits.maxRedirects} times`, 'refused');
        current = next;
        continue;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw fail(`${name} answered HTTP ${response.status}`, 'unreadable');
      }
      const declared = Number(response.headers.get('content-length'));
      if (Number.isFinite(declared) && declared > budget.left) {
        await response.body?.cancel().catch(() => undefined);
        budget.take(declared, `${name} (by its Content-Length)`, declared); // refused unread
      }
      const chunks: Buffer[] = [];
      const reader = response.body?.getReader();
      while (reader) {
        const { done, value } = await reader.read();
        if (done) break;
        try {
          budget.take(value.byteLength, name);
        } catch (error) {
          await reader.cancel().catch(() => undefined);
          throw error;
        }
        chunks.push(Buffer.from(value));
      }
      const mimeType = response.headers.get('content-type') ?? undefined;
      return { bytes: Buffer.concat(chunks), ...(mimeType ? { mimeType } : {}) };
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    if (signal.aborted) throw fail(`${name} did not arrive within ${limits.remoteTimeoutMs / 1000} s`, 'limit');
    const cause = (error as { cause?: { code?: string; message?: string } }).cause;
    throw fail(`cannot fetch ${name} (${cause?.code ?? cause?.message ?? (error as Error).message})`, 'unreadable');
  }
}

/**
 * Checks a parsed document before anything walks it: nesting depth, cycles (a YAML alias inside the node it
 * names) and the nodes that shared subtrees (YAML aliases) add when the document is walked as a tree. Linear in
 * the nodes as written, whatever the aliases expand to.
 */
export function checkDocumentBounds(document: unknown, limits: Pick<InputLimits, 'maxDepth' | 'maxAliasNodes'>): void {
  const seen = new Map<object, { nodes: number; height: number }>();
  const onPath = new Set<object>();
  const tokens: Array<string | number> = [];
  let expanded = 0;
  let largest: { pointer: string; nodes: number } | undefined;
  const deeper = () => fail(`nesting deeper than ${limits.maxDepth} levels`, 'limit', pointerOf(...tokens));
  const visit = (node: unknown): { nodes: number; height: number } => {
    if (node === null || typeof node !== 'object') return { nodes: 1, height: 0 };
    const known = seen.get(node);
    if (known !== undefined) {
      // A second path to the same node: an alias. It costs its whole subtree again to anything that walks it.
      if (tokens.length + known.height > limits.maxDepth) throw deeper();
      expanded += known.nodes;
      if (!largest || known.nodes > largest.nodes) largest = { pointer: pointerOf(...tokens), nodes: known.nodes };
      if (expanded > limits.maxAliasNodes) {
        throw fail(`YAML aliases expand the document by more than ${limits.maxAliasNodes.toLocaleString('en-US')} nodes (the alias at this pointer repeats ${largest.nodes.toLocaleString('en-US')})`, 'limit', largest.pointer);
      }
      return known;
    }
    if (onPath.has(node)) throw fail('a YAML alias refers to a node that contains it (the document would be infinite)', 'limit', pointerOf(...tokens));
    if (tokens.length >= limits.maxDepth) throw deeper();
    onPath.add(node);
    const measure = { nodes: 1, height: 1 };
    for (const key of Object.keys(node)) {
      tokens.push(key);
      const child = visit((node as Record<string, unknown>)[key]);
      tokens.pop();
      measure.nodes += child.nodes;
      measure.height = Math.max(measure.height, child.height + 1);
    }
    onPath.delete(node);
    seen.set(node, measure);
    return measure;
  };
  visit(document);
}

function urlOf(spec: string): string {
  try {
    return new URL(spec).href;
  } catch {
    throw new SpecError(displayUrl(spec), '#', 'not a valid URL');
  }
}

/**
 * Redocly's resolver with this toolkit's input policy (see the module comment). One instance per load; `fork()`
 * gives a resolver for a second pass (lint after bundle: Redocly's bundle rewrites the parsed documents in place)
 * that shares the reads, so no document is fetched or read twice and the byte budget counts it once.
 */
export class SpecResolver extends BaseResolver {
  /** The root document: an absolute path, a URL, or `<cwd>/<stdin>`. */
  readonly root: string;
  readonly policy: InputPolicy;
  readonly #spec: string;
  readonly #reads: Reads;
  #folders: Promise<Array<{ lexical: string; real: string }>> | undefined;

  constructor(spec: string, policy: InputPolicy = inputPolicy(), reads?: Reads) {
    super({ http: { headers: [] } });
    this.#spec = spec;
    this.policy = policy;
    this.root = spec === STDIN ? path.join(process.cwd(), STDIN_NAME) : isRemote(spec) ? urlOf(spec) : path.resolve(spec);
    this.#reads = reads ?? { budget: new Budget(policy.limits.maxBytes), sources: new Map() };
  }

  /** How many documents this load has read (the root and each external `$ref` target), its forks included. */
  get documentsRead(): number {
    return this.#reads.sources.size;
  }

  fork(): SpecResolver {
    return new SpecResolver(this.#spec, this.policy, this.#reads);
  }

  /** The root document's bytes (read once per load, bounded). */
  async rootBytes(): Promise<Buffer> {
    return (await this.#read(this.root)).bytes;
  }

  override resolveExternalRef(base: string | null, ref: string): string {
    if (isRemote(ref)) return ref;
    if (base && isRemote(base)) return new URL(ref, base).href;
    // Another scheme (file:, ftp:, data:...) is kept as written and refused when loaded.
    if (/^[a-z][a-z0-9+.-]+:/i.test(ref)) return ref;
    return path.resolve(base ? path.dirname(base) : process.cwd(), ref);
  }

  override async loadExternalRef(absoluteRef: string): Promise<Source> {
    return (await this.#read(absoluteRef)).source;
  }

  override parseDocument(source: Source, isRoot = false): Document {
    let document: Document;
    try {
      document = super.parseDocument(source, isRoot);
    } catch (error) {
      // js-yaml stops at 100 levels itself; were that ever lifted, its recursion would overflow the stack instead.
      const original = error instanceof YamlParseError ? error.originalError : error;
      if (original instanceof RangeError || /exceeded maxDepth/.test(String((original as Error | undefined)?.message))) {
        const reason = `nesting deeper than ${Math.min(this.policy.limits.maxDepth, 100)} levels`;
        if (source.absoluteRef === this.root && error instanceof YamlParseError) throw new SpecError(displayPath(this.root), '#', reason, error.line, error.col);
        throw this.#failure(source.absoluteRef, fail(reason, 'limit'));
      }
      throw error;
    }
    try {
      checkDocumentBounds(document.parsed, this.policy.limits);
    } catch (error) {
      throw this.#failure(source.absoluteRef, error);
    }
    // Redocly's walk crashes without a location on keys such as `hasOwnProperty` (model/names.ts): name them first.
    const unsafe = bundlerUnsafeKeyPointers(document.parsed);
    if (unsafe.length > 0) {
      const reason = (at: string): string => bundlerUnsafeKeyReason(at.split('/').pop()!.replace(/~1/g, '/').replace(/~0/g, '~'));
      if (source.absoluteRef === this.root) throw new SpecErrors(unsafe.map((at) => new SpecError(displayPath(this.root), at, reason(at))));
      throw this.#failure(source.absoluteRef, fail(reason(unsafe[0]!), 'refused', unsafe[0]));
    }
    return document;
  }

  /** The root's problems are `SpecError`s; another document's stay `InputError`s, which Redocly reports at the `$ref`. */
  #failure(absoluteRef: string, error: unknown): unknown {
    if (!(error instanceof InputError)) return error;
    if (absoluteRef === this.root) return new SpecError(displayPath(this.root), error.pointer, error.reason);
    if (error.pointer === '#') return error;
    return fail(`${displayPath(absoluteRef)} ${error.pointer}: ${error.reason}`, error.kind);
  }

  #read(absoluteRef: string): Promise<{ bytes: Buffer; source: Source }> {
    let read = this.#reads.sources.get(absoluteRef);
    if (!read) {
      read = this.#readUncached(absoluteRef);
      read.catch(() => undefined);
      this.#reads.sources.set(absoluteRef, read);
    }
    return read.catch((error: unknown) => {
      throw this.#failure(absoluteRef, error);
    });
  }

  async #readUncached(absoluteRef: string): Promise<{ bytes: Buffer; source: Source }> {
    const isRoot = absoluteRef === this.root;
    const { budget } = this.#reads;
    let bytes: Buffer;
    let mimeType: string | undefined;
    if (isRoot && this.#spec === STDIN) bytes = await readStdin(budget);
    else if (isRemote(absoluteRef)) {
      if (!this.policy.allowRemoteRefs) {
        throw fail(isRoot ? 'reading a spec from a URL needs --allow-remote-refs' : `${displayUrl(absoluteRef)} is remote; remote $refs are fetched only with --allow-remote-refs`, 'refused');
      }
      ({ bytes, mimeType } = await readRemote(absoluteRef, this.policy.limits, budget));
    } else if (/^[a-z][a-z0-9+.-]+:/i.test(absoluteRef)) {
      throw fail(`${absoluteRef.split(':')[0]}: references are not supported (a $ref is a relative path or, with --allow-remote-refs, an http(s) URL)`, 'refused');
    } else if (isRoot) bytes = await readLocal(absoluteRef, budget, true);
    else bytes = await readLocal(await this.#allowedLocal(absoluteRef), budget, false, displayPath(absoluteRef));
    // As Redocly's own reader: UTF-8, Windows line ends folded.
    return { bytes, source: new Source(absoluteRef, bytes.toString('utf8').replace(/\r\n/g, '\n'), mimeType) };
  }

  /**
   * The folders local `$ref`s may reach, each lexically and through symlinks: the root document's, those the policy
   * adds, and for one of the toolkit's own documents its whole `spec/` (the sandbox's control document in
   * `spec/sandbox/` shares the public spec's schemas).
   */
  #allowedFolders(): Promise<Array<{ lexical: string; real: string }>> {
    const own = inside(OWN_SPECS, this.root) ? [OWN_SPECS] : [];
    // Stdin has no folder: the working directory is wherever the user happens to be, often beside a `.env`.
    const rootFolder = this.#spec === STDIN ? [] : [path.dirname(this.root)];
    this.#folders ??= Promise.all(
      [...rootFolder, ...this.policy.allowRefsOutside, ...own].map(async (lexical) => ({ lexical, real: await realpath(lexical).catch(() => lexical) })),
    );
    return this.#folders;
  }

  /** Whether the policy allows this file by name (`--allow-ref-file`), as written or through its real path. */
  async #allowedByName(file: string, real: string): Promise<boolean> {
    for (const allowed of this.policy.allowRefFiles) {
      if (allowed === file || allowed === real || (await realpath(allowed).catch(() => allowed)) === real) return true;
    }
    return false;
  }

  /** The real path of a local `$ref` target, once it is known to stay inside an allowed folder; refuses it otherwise. */
  async #allowedLocal(file: string): Promise<string> {
    const name = displayPath(file);
    if (isRemote(this.root)) throw fail(`${name} is a local file referenced from a remote document`, 'refused');
    const folders = await this.#allowedFolders();
    if (folders.length === 0) throw fail(`${name}: a spec read from stdin resolves no local $ref (--allow-refs-outside <dir> lets it read <dir>)`, 'refused');
    const where = `${displayPath(folders[0]!.lexical) || '.'}${path.sep}`;
    const widen = this.policy.allowRefsOutside.length === 0 ? ' (--allow-refs-outside <dir> allows another)' : '';
    const lexicalFolder = folders.find((f) => inside(f.lexical, file));
    if (!lexicalFolder) throw fail(`${name} is outside the spec's folder ${where}: local $refs stay inside it${widen}`, 'refused');
    let real: string;
    try {
      real = await realpath(file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      throw fail(code === 'ENOENT' ? `${name} does not exist` : `cannot read ${name} (${code ?? String(error)})`, code === 'ENOENT' ? 'missing' : 'unreadable');
    }
    const realFolder = folders.find((f) => inside(f.real, real));
    if (!realFolder) throw fail(`${name} leads through a symlink to ${real}, outside the spec's folder ${where}${widen}`, 'refused');
    if (['/proc', '/sys', '/dev'].some((system) => inside(system, real))) throw fail(`${name} is a system file (${real})`, 'refused');
    // By name, both as written and where a symlink leads: `notes.yaml -> .env` is the `.env`.
    const problem = refFileProblem(path.relative(lexicalFolder.lexical, file)) ?? refFileProblem(path.relative(realFolder.real, real));
    if (problem !== null && !(await this.#allowedByName(file, real))) {
      const shown = real === file ? '' : ` (it leads to ${displayPath(real)})`;
      throw fail(`${name}${shown} ${problem}: a $ref target is a .yaml, .yml or .json document (--allow-ref-file ${name} allows this one)`, 'refused');
    }
    return real;
  }
}

/** The root document's bytes, read under the input policy (bounded; a path, a URL or stdin); a `SpecError` when it cannot be. */
export async function readSpecBytes(spec: string, resolver: SpecResolver = new SpecResolver(spec)): Promise<Buffer> {
  return resolver.rootBytes();
}

type BundleResult = Awaited<ReturnType<typeof bundle>>;

/**
 * Bundles a spec with Redocly (refs kept) through the policy resolver; a YAML or JSON syntax error is a
 * `SpecError` with its line and column, and the bundled document is checked against the depth and expansion
 * limits as well (several documents inlined into one can exceed what each one respects).
 */
export async function bundleSpec(spec: string, config: Parameters<typeof bundle>[0]['config'], resolver: SpecResolver = new SpecResolver(spec)): Promise<BundleResult> {
  let result: BundleResult;
  try {
    result = await bundle({ ref: resolver.root, config, dereference: false, externalRefResolver: resolver });
  } catch (error) {
    if (error instanceof SpecError || error instanceof SpecErrors) throw error;
    // YAML syntax errors arrive as exceptions whose message ends with `(line:column)`.
    const message = error instanceof Error ? error.message : String(error);
    const at = /\((\d+):(\d+)\)\s*$/.exec(message);
    const reason = message.replace(/ in "[^"]*" \(\d+:\d+\)\s*$/, '');
    throw new SpecError(displayPath(resolver.root), '#', reason, at ? Number(at[1]) : undefined, at ? Number(at[2]) : undefined);
  }
  // A bundle of the root alone is the root document, whose bounds `parseDocument` has checked.
  if (resolver.documentsRead > 1 && !result.problems.some((p) => p.severity === 'error')) {
    try {
      checkDocumentBounds(result.bundle.parsed, resolver.policy.limits);
    } catch (error) {
      if (error instanceof InputError) throw new SpecError(displayPath(resolver.root), error.pointer, `the bundled document: ${error.reason}`);
      throw error;
    }
  }
  return result;
}

/** The bundled document, if it is an object declaring OpenAPI 3.1; a `SpecError` otherwise. */
export function assertOpenApi31(file: string, document: unknown): JsonObject {
  if (!document || typeof document !== 'object' || Array.isArray(document)) {
    throw new SpecError(displayPath(file), '#', 'the document is not a YAML or JSON object');
  }
  const version = (document as JsonObject).openapi;
  if (typeof version !== 'string' || !/^3\.1\.\d+(-[\w.]+)?$/.test(version)) {
    throw new SpecError(displayPath(file), '#/openapi', `expected an OpenAPI 3.1 document, found openapi: ${JSON.stringify(version)}`);
  }
  return document as JsonObject;
}

/** The value at a JSON pointer (`#/a/b~1c`) of a parsed document, or undefined. */
function at(document: unknown, pointer: string): unknown {
  let node = document;
  for (const raw of pointer.replace(/^#\/?/, '').split('/').filter((t) => t !== '')) {
    const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
    node = typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[token] : undefined;
  }
  return node;
}

const parsedSources = new WeakMap<object, unknown>();

/** The `$ref` string written at `pointer` of a source (parsed as the loader parsed it: that text passed its bounds). */
function refAt(source: Source | undefined, pointer: string): string | undefined {
  if (!source) return undefined;
  let parsed = parsedSources.get(source);
  if (parsed === undefined) {
    try {
      parsed = parseYaml(source.body);
    } catch {
      parsed = null;
    }
    parsedSources.set(source, parsed);
  }
  let ref = at(parsed, pointer);
  if (typeof ref === 'object' && ref !== null) ref = (ref as { $ref?: unknown; externalValue?: unknown }).$ref ?? (ref as { externalValue?: unknown }).externalValue;
  return typeof ref === 'string' ? ref : undefined;
}

/**
 * The reason for a `$ref` that does not resolve, naming it as written and the file it was resolved against:
 * refused by the input policy or past a limit (with why), or pointing at nothing (a missing file, or a pointer
 * the file does not hold). `message` is Redocly's (`Can't resolve $ref: ...`).
 */
export function refProblemReason(file: string, source: Source | undefined, pointer: string, message: string): string {
  const detail = message.replace(/^Can't resolve \$ref:?\s*/, '');
  const ref = refAt(source, pointer);
  const head = ref === undefined ? '$ref' : `$ref ${JSON.stringify(ref)} (resolved against ${displayPath(file)})`;
  const kind = inputFailures.get(detail);
  if (kind !== undefined) return `${head} ${kind === 'missing' ? 'points at nothing' : kind === 'unreadable' ? 'cannot be read' : 'is refused'}: ${detail}`;
  if (ref === undefined) return message;
  const hash = ref.indexOf('#');
  const target = hash === -1 ? ref : ref.slice(0, hash);
  const fragment = hash === -1 ? '' : ref.slice(hash);
  if (/^[a-z][a-z0-9+.-]+:/i.test(target) || isRemote(file)) return `${head} points at nothing: ${detail || 'cannot load it'}`;
  const targetFile = target === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
  return `${head} points at nothing: ${displayPath(targetFile)} has no ${fragment || '#'}`;
}

function problemToError(file: string, problem: NormalizedProblem): SpecError {
  const location = problem.location[0];
  const where = location?.source.absoluteRef ?? file;
  const pointer = location?.pointer ?? '#/';
  const reason = /^Can't resolve \$ref/.test(problem.message) ? refProblemReason(where, location?.source, pointer, problem.message) : problem.message;
  return new SpecError(displayPath(where), pointer, reason);
}

/**
 * The problems that are the input policy's refusals (a `$ref` outside the folder, to a device, remote without the
 * flag, past a limit, unreadable) rather than findings about the spec: `lint` exits 2 on these, as generation does.
 */
export function inputProblems(file: string, problems: readonly NormalizedProblem[]): SpecError[] {
  const ours = (p: NormalizedProblem) => {
    const kind = inputFailures.get(p.message.replace(/^Can't resolve \$ref:?\s*/, ''));
    return kind !== undefined && kind !== 'missing';
  };
  return problems.filter((p) => p.severity === 'error' && ours(p)).map((p) => problemToError(file, p));
}

/** The bundled document, if it is an object declaring OpenAPI 3.0 or 3.1; a `SpecError` otherwise. */
export function assertOpenApi3(file: string, document: unknown): JsonObject {
  if (!document || typeof document !== 'object' || Array.isArray(document)) {
    throw new SpecError(displayPath(file), '#', 'the document is not a YAML or JSON object');
  }
  const version = (document as JsonObject).openapi;
  if (typeof version !== 'string' || !/^3\.[01]\.\d+(-[\w.]+)?$/.test(version)) {
    throw new SpecError(displayPath(file), '#/openapi', `expected an OpenAPI 3.0 or 3.1 document, found openapi: ${JSON.stringify(version)}`);
  }
  return document as JsonObject;
}

/** Redocly's problems of severity `error` as `SpecError`s (an unresolved `$ref` named with its target and why). */
export function fatalProblems(file: string, problems: readonly NormalizedProblem[]): SpecError[] {
  return problems.filter((p) => p.severity === 'error').map((p) => problemToError(file, p));
}

/**
 * Loads, bundles and validates a spec (a path, an http(s) URL or `-` for stdin) under the input policy (the
 * process's, see {@link setInputPolicy}, unless `options.policy` says otherwise); throws `SpecError`/`SpecErrors`
 * with file and pointer.
 */
export async function loadSpec(spec: string, options: { cache?: boolean; policy?: InputPolicy } = {}): Promise<LoadedSpec> {
  const resolver = new SpecResolver(spec, options.policy ?? inputPolicy());
  const file = resolver.root;
  const bytes = await resolver.rootBytes();
  const hash = createHash('sha256').update(bytes).digest('hex');
  const cached = options.cache === false ? undefined : cache.get(`${file}\0${hash}`);
  if (cached) return cached;

  const result = await bundleSpec(spec, await createConfig({}), resolver);
  const fatal = fatalProblems(file, result.problems);
  if (fatal.length > 0) throw new SpecErrors(fatal);
  const document = assertOpenApi31(file, result.bundle.parsed);
  const validation = validateOpenApi31(document);
  if (!validation.valid) {
    throw new SpecErrors(
      validation.errors.map((e) => new SpecError(displayPath(file), `#${e.instancePath ?? ''}`, `${e.message ?? 'invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)),
    );
  }
  const loaded: LoadedSpec = { file, document, hash };
  cache.set(`${file}\0${hash}`, loaded);
  return loaded;
}

/**
 * Reads and bundles any OpenAPI 3.0 or 3.1 document (a path, an http(s) URL or `-` for stdin) under the same input
 * policy, `$ref` and error rules as `loadSpec`, but without the 3.1 schema validation: for tools that compare
 * documents (`diff`) rather than generate from them.
 */
export async function loadOpenApiDocument(spec: string, options: { policy?: InputPolicy } = {}): Promise<LoadedSpec> {
  const resolver = new SpecResolver(spec, options.policy ?? inputPolicy());
  const file = resolver.root;
  const bytes = await resolver.rootBytes();
  const hash = createHash('sha256').update(bytes).digest('hex');
  const result = await bundleSpec(spec, await createConfig({}), resolver);
  const fatal = fatalProblems(file, result.problems);
  if (fatal.length > 0) throw new SpecErrors(fatal);
  return { file, document: assertOpenApi3(file, result.bundle.parsed), hash };
}
