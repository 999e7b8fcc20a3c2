/**
 * Loads a spec once per run: read, parse, bundle (external `$ref`s pulled in, internal ones kept so that
 * schema names survive), validate against the OpenAPI 3.1 schema. Results are cached by the hash of the
 * file's bytes, so a CLI run that renders several targets parses the spec once.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { bundle, createConfig, type NormalizedProblem } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { parse as parseYaml } from 'yaml';
import { SpecError, SpecErrors } from './errors.js';

export type JsonObject = Record<string, unknown>;

export interface LoadedSpec {
  /** Absolute path of the root file. */
  file: string;
  /** The bundled OpenAPI document. Treat as read-only. */
  document: JsonObject;
  /** SHA-256 of the root file's bytes. */
  hash: string;
}

const cache = new Map<string, LoadedSpec>();

/** A file as messages show it: relative to the working directory when it lies below it, else absolute. */
export function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith('..') || path.isAbsolute(rel) ? file : rel;
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

/**
 * The reason for a `$ref` that does not resolve, naming its target: the ref as written, the file it was
 * resolved against, and what is missing there (the file, or the pointer inside it).
 */
export function danglingRefReason(file: string, source: string | undefined, pointer: string, fallback: string): string {
  let ref: unknown;
  try {
    ref = source === undefined ? undefined : at(parseYaml(source), pointer);
    if (typeof ref === 'object' && ref !== null) ref = (ref as { $ref?: unknown }).$ref;
  } catch {
    ref = undefined;
  }
  if (typeof ref !== 'string') return fallback;
  const hash = ref.indexOf('#');
  const target = hash === -1 ? ref : ref.slice(0, hash);
  const fragment = hash === -1 ? '' : ref.slice(hash);
  const targetFile = target === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
  const head = `$ref ${JSON.stringify(ref)} (resolved against ${displayPath(file)}) points at nothing`;
  if (/^[a-z][a-z0-9+.-]*:/i.test(target)) return `${head}: ${fallback.replace(/^Can't resolve \$ref:?\s*/, '') || 'cannot load it'}`;
  if (!existsSync(targetFile)) return `${head}: ${displayPath(targetFile)} does not exist`;
  return `${head}: ${displayPath(targetFile)} has no ${fragment || '#'}`;
}

function problemToError(file: string, problem: NormalizedProblem): SpecError {
  const location = problem.location[0];
  const where = location?.source.absoluteRef ?? file;
  const pointer = location?.pointer ?? '#/';
  const reason = /^Can't resolve \$ref/.test(problem.message) ? danglingRefReason(where, location?.source.body, pointer, problem.message) : problem.message;
  return new SpecError(displayPath(where), pointer, reason);
}

/** Reads a spec file's bytes; an unreadable file is a `SpecError` (`file not found`, `cannot read the file`). */
export async function readSpecBytes(file: string): Promise<Buffer> {
  try {
    return await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SpecError(displayPath(file), '#', code === 'ENOENT' ? 'file not found' : `cannot read the file (${code ?? String(error)})`);
  }
}

type BundleResult = Awaited<ReturnType<typeof bundle>>;

/** Bundles a spec with Redocly (refs kept); a YAML or JSON syntax error is a `SpecError` with its line and column. */
export async function bundleSpec(file: string, config: Parameters<typeof bundle>[0]['config']): Promise<BundleResult> {
  try {
    return await bundle({ ref: file, config, dereference: false });
  } catch (error) {
    // YAML syntax errors arrive as exceptions whose message ends with `(line:column)`.
    const message = error instanceof Error ? error.message : String(error);
    const at = /\((\d+):(\d+)\)\s*$/.exec(message);
    const reason = message.replace(/ in "[^"]*" \(\d+:\d+\)\s*$/, '');
    throw new SpecError(displayPath(file), '#', reason, at ? Number(at[1]) : undefined, at ? Number(at[2]) : undefined);
  }
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

/** Redocly's problems of severity `error` as `SpecError`s (a dangling `$ref` named with its target). */
export function fatalProblems(file: string, problems: readonly NormalizedProblem[]): SpecError[] {
  return problems.filter((p) => p.severity === 'error').map((p) => problemToError(file, p));
}

/** Loads, bundles and validates a spec file; throws `SpecError`/`SpecErrors` with file and pointer. */
export async function loadSpec(specPath: string, options: { cache?: boolean } = {}): Promise<LoadedSpec> {
  const file = path.resolve(specPath);
  const bytes = await readSpecBytes(file);
  const hash = createHash('sha256').update(bytes).digest('hex');
  const cached = options.cache === false ? undefined : cache.get(`${file}\0${hash}`);
  if (cached) return cached;

  const result = await bundleSpec(file, await createConfig({}));
  const fatal = fatalProblems(file, result.problems);
  if (fatal.length > 0) throw new SpecErrors(fatal);
  const document = assertOpenApi31(file, result.bundle.parsed);
  const validation = await new Validator().validate(structuredClone(document));
  if (!validation.valid) {
    const errors = (Array.isArray(validation.errors) ? validation.errors : []) as Array<{ instancePath?: string; message?: string; params?: unknown }>;
    throw new SpecErrors(
      errors.map((e) => new SpecError(displayPath(file), `#${e.instancePath ?? ''}`, `${e.message ?? 'invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)),
    );
  }
  const loaded: LoadedSpec = { file, document, hash };
  cache.set(`${file}\0${hash}`, loaded);
  return loaded;
}
