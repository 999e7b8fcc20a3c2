/**
 * Loads a spec once per run: read, parse, bundle (external `$ref`s pulled in, internal ones kept so that
 * schema names survive), validate against the OpenAPI 3.1 schema. Results are cached by the hash of the
 * file's bytes, so a CLI run that renders several targets parses the spec once.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { bundle, createConfig, type NormalizedProblem } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
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

function displayPath(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith('..') ? file : rel;
}

function problemToError(file: string, problem: NormalizedProblem): SpecError {
  const location = problem.location[0];
  const where = location?.source.absoluteRef ?? file;
  return new SpecError(displayPath(where), location?.pointer ?? '#/', problem.message);
}

/** Loads, bundles and validates a spec file; throws `SpecError`/`SpecErrors` with file and pointer. */
export async function loadSpec(specPath: string, options: { cache?: boolean } = {}): Promise<LoadedSpec> {
  const file = path.resolve(specPath);
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SpecError(displayPath(file), '#', code === 'ENOENT' ? 'file not found' : `cannot read the file (${code ?? String(error)})`);
  }
  const hash = createHash('sha256').update(bytes).digest('hex');
  const cached = options.cache === false ? undefined : cache.get(`${file}\0${hash}`);
  if (cached) return cached;

  const config = await createConfig({});
  let result;
  try {
    result = await bundle({ ref: file, config, dereference: false });
  } catch (error) {
    // YAML syntax errors arrive as exceptions whose message ends with `(line:column)`.
    const message = error instanceof Error ? error.message : String(error);
    const at = /\((\d+):(\d+)\)\s*$/.exec(message);
    const reason = message.replace(/ in "[^"]*" \(\d+:\d+\)\s*$/, '');
    throw new SpecError(displayPath(file), '#', reason, at ? Number(at[1]) : undefined, at ? Number(at[2]) : undefined);
  }
  const fatal = result.problems.filter((p) => p.severity === 'error');
  if (fatal.length > 0) throw new SpecErrors(fatal.map((p) => problemToError(file, p)));

  const document = result.bundle.parsed as unknown;
  if (!document || typeof document !== 'object' || Array.isArray(document)) {
    throw new SpecError(displayPath(file), '#', 'the document is not a YAML or JSON object');
  }
  const version = (document as JsonObject).openapi;
  if (typeof version !== 'string' || !version.startsWith('3.1')) {
    throw new SpecError(displayPath(file), '#/openapi', `expected an OpenAPI 3.1 document, found openapi: ${JSON.stringify(version)}`);
  }
  const validation = await new Validator().validate(structuredClone(document) as JsonObject);
  if (!validation.valid) {
    const errors = (Array.isArray(validation.errors) ? validation.errors : []) as Array<{ instancePath?: string; message?: string; params?: unknown }>;
    throw new SpecErrors(
      errors.map((e) => new SpecError(displayPath(file), `#${e.instancePath ?? ''}`, `${e.message ?? 'invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`)),
    );
  }
  const loaded: LoadedSpec = { file, document: document as JsonObject, hash };
  cache.set(`${file}\0${hash}`, loaded);
  return loaded;
}
