/**
 * Strict lint of an OpenAPI document: Redocly (`recommended-strict` plus this project's rules, from
 * `redocly.yaml`), then the checks of the bundled document in {@link DOCUMENT_CHECKS}, each a small function run
 * once: the OpenAPI 3.1 schema (the precompiled validator generation uses, no schema compiled at run time), every
 * local `$ref` of the bundle resolving, and what the generators would refuse. Every problem carries the file, the
 * JSON pointer and the reason.
 *
 * Each check is paid for once. The schema check used to run twice, by swagger-parser (which, for OpenAPI 3, only
 * dereferences the document and validates it against the schema with its own Ajv) and by
 * @seriousme/openapi-schema-validator (which compiles the schema on every `new Validator()`): about 0.5 s of CPU on
 * this repository's spec. It is now the precompiled copy of the second, and the `$ref` resolution both of them did
 * is `unresolvedLocalRefs`.
 */
import type { NormalizedProblem } from '@redocly/openapi-core';
import { childPath, pathPointer, SpecErrors, type PointerPath } from '../model/errors.js';
import { assertOpenApi31, bundleSpec, displayPath, inputProblems, refProblemReason, SpecResolver, type JsonObject } from '../model/load.js';
import { validateOpenApi31 } from '../model/openapi31-validator.js';
import { readFile } from 'node:fs/promises';
import { createConfig, getLineColLocation, lint, loadConfig, parseYaml } from '../model/redocly.js';
import { DEFAULT_LINT_CONFIG, DEFAULT_SPEC } from '../core/assets.js';
import { runtimeSchemaProblems } from './runtime-schemas.js';
import { generatorProblems } from './spec-text.js';

export { DEFAULT_LINT_CONFIG, DEFAULT_SPEC, REPO_ROOT } from '../core/assets.js';

/** `gen-card-api`: what the generators would refuse, and spec text that has no business in generated code (spec-text.ts). */
export type LintSource = 'redocly' | 'openapi-3.1-schema' | 'gen-card-api';

export interface LintProblem {
  source: LintSource;
  severity: 'error' | 'warn';
  /** Path of the file that holds the problem, relative to the working directory when possible. */
  file: string;
  /** JSON pointer into that file, `#/paths/~1cards/post`. */
  pointer: string;
  line?: number;
  column?: number;
  rule?: string;
  message: string;
}

export interface LintReport {
  specPath: string;
  problems: LintProblem[];
  errors: number;
  warnings: number;
}

const relative = displayPath;

function fromRedocly(problem: NormalizedProblem): LintProblem {
  const location = problem.location[0];
  const file = location?.source.absoluteRef ?? '';
  const pointer = location?.pointer ?? '#/';
  const message = /^Can't resolve \$ref/.test(problem.message) && file !== '' ? refProblemReason(file, location?.source, pointer, problem.message) : problem.message;
  let line: number | undefined;
  let column: number | undefined;
  if (location) {
    try {
      const at = getLineColLocation(location);
      line = at.start.line;
      column = at.start.col;
    } catch {
      // A location without a source body (a resolve error) has no line; the pointer is enough.
    }
  }
  return {
    source: 'redocly',
    severity: problem.severity,
    file: relative(file),
    pointer,
    ...(line === undefined ? {} : { line, column }),
    rule: problem.ruleId,
    message,
  };
}

/** What a document check reads: the root file (absolute and as shown), the bundled document, and whether Redocly found an error. */
export interface LintContext {
  file: string;
  display: string;
  document: JsonObject;
  /** Redocly found no error: the checks that would only repeat its findings on a broken document run. */
  redoclyClean: boolean;
}

/** A check of the bundled document: its problems, nothing else (no I/O, no state). */
export type LintCheck = (context: LintContext) => LintProblem[];

/** The bundled document against the OpenAPI 3.1 schema (Ajv's standalone code, compiled once at build time). */
export const openApi31Schema: LintCheck = ({ display, document, redoclyClean }) => {
  if (!redoclyClean) return [];
  const result = validateOpenApi31(document);
  if (result.valid) return [];
  return result.errors.map((e) => ({
    source: 'openapi-3.1-schema',
    severity: 'error',
    file: display,
    pointer: `#${e.instancePath ?? ''}`,
    message: `${e.message ?? 'invalid'}${e.params ? ` ${JSON.stringify(e.params)}` : ''}`,
  }));
};

const DATA_KEYS = new Set(['default', 'example', 'const', 'enum']);

/** Every local `$ref` of the bundled document points at something (a bundle that rewrote a ref wrongly, or a ref Redocly left as data). */
export const unresolvedLocalRefs: LintCheck = ({ display, document, redoclyClean }) => {
  if (!redoclyClean) return [];
  const found: LintProblem[] = [];
  const target = (ref: string): unknown => {
    let node: unknown = document;
    for (const raw of ref.slice(2).split('/')) {
      if (ref === '#/' || ref === '#') break;
      const token = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      node = typeof node === 'object' && node !== null && Object.hasOwn(node, token) ? (node as Record<string, unknown>)[token] : undefined;
    }
    return node;
  };
  const walk = (node: unknown, where: PointerPath, depth: number): void => {
    if (depth > 256 || typeof node !== 'object' || node === null || found.length >= 100) return;
    if (Array.isArray(node)) return node.forEach((v, i) => walk(v, childPath(where, i), depth + 1));
    // An Example object: the node under `.../examples/<name>`.
    const example = where !== null && where.up !== null && where.up.key === 'examples';
    for (const [key, value] of Object.entries(node)) {
      // `default`, `example`, `const`, `enum`, a schema's `examples` list and an Example's `value` hold data: a
      // `$ref` key there is a value, not a reference.
      if (DATA_KEYS.has(key) || (key === 'examples' && Array.isArray(value)) || (key === 'value' && example)) continue;
      if (key === '$ref' && typeof value === 'string' && (value === '#' || value.startsWith('#/')) && target(value) === undefined) {
        found.push({ source: 'openapi-3.1-schema', severity: 'error', file: display, pointer: pathPointer(childPath(where, key)), rule: 'ref-resolves', message: `$ref ${JSON.stringify(value)} points at nothing in the bundled document` });
      } else walk(value, childPath(where, key), depth + 1);
    }
  };
  walk(document, null, 0);
  return found;
};

/** What the generators would refuse, and spec text that has no business in generated code (spec-text.ts). */
export const generatorRefusals: LintCheck = ({ file, display, document }) => generatorProblems(file, display, document);

/** What the generated server could not start with: a `pattern` its Ajv cannot compile (runtime-schemas.ts, the generators' own check). */
export const serverRuntime: LintCheck = ({ display, document }) => runtimeSchemaProblems(display, document);

/** The document checks, in order. A new check is one more function here. */
export const DOCUMENT_CHECKS: readonly LintCheck[] = [openApi31Schema, unresolvedLocalRefs, generatorRefusals, serverRuntime];

type LintConfig = Awaited<ReturnType<typeof loadConfig>>;

/** Whether `node` holds a `$ref` key at any depth. */
function hasRef(node: unknown, depth = 0): boolean {
  if (typeof node !== 'object' || node === null || depth > 64) return depth > 64;
  if (Array.isArray(node)) return node.some((item) => hasRef(item, depth + 1));
  return Object.entries(node).some(([key, value]) => key === '$ref' || hasRef(value, depth + 1));
}

/**
 * The Redocly configuration in `configPath` (this package's own `redocly.yaml` files: lint takes no user config).
 * `loadConfig` reads it as a document to bundle: it resolves and inlines the file's `$ref`s, walking it with the
 * config's types, and that walk compiles JSON Schema 2020-12's meta-schema with Ajv to tell the types apart (about
 * 60 ms of CPU, 12% of a lint, on @redocly/openapi-core 1.34). A configuration without a `$ref` bundles to itself, so
 * it goes straight to `createConfig`, which resolves `extends`, the plugins and the rules from the same object
 * with `configPath` as their base, as `loadConfig` does after its bundle. Anything else (a `$ref`, a file that does
 * not parse) takes `loadConfig`'s path and its errors. test/generators/lint.test.ts compares the two.
 */
export async function lintConfig(configPath: string): Promise<LintConfig> {
  let raw: unknown;
  try {
    raw = parseYaml(await readFile(configPath, 'utf8'));
  } catch {
    return loadConfig({ configPath });
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw) || hasRef(raw)) return loadConfig({ configPath });
  return createConfig(raw as Parameters<typeof createConfig>[0], { configPath });
}

/**
 * The bundled document, once lint has resolved every document through `resolver`. A spec that is one file (lint read
 * no other document, nor tried to) is its own bundle: Redocly's bundle of it, `$ref`s kept, rewrites nothing, so its
 * walk is skipped and the root as lint parsed it is the document.
 */
async function bundled(specPath: string, config: LintConfig, resolver: SpecResolver): Promise<unknown> {
  if (resolver.documentsRead === 1) {
    const root = await resolver.resolveDocument(null, resolver.root, true);
    if (!(root instanceof Error) && 'parsed' in root) return root.parsed;
  }
  const result = await bundleSpec(specPath, config, resolver);
  const refused = inputProblems(resolver.root, result.problems);
  if (refused.length > 0) throw new SpecErrors(refused);
  return result.bundle.parsed;
}

/**
 * Lints one spec (a path, an http(s) URL or `-` for stdin). Resolves with every lint problem; inspect `errors`. A
 * spec that cannot be linted at all (unreadable, past the input limits, not YAML or JSON, not OpenAPI 3.1, or with a
 * `$ref` the input policy refuses) rejects with the generators' `SpecError`/`SpecErrors` (file, pointer, reason),
 * which the CLI prints the same way and exits 2 on: every document is read through the generators' resolver.
 */
export async function lintSpec(specPath: string = DEFAULT_SPEC, configPath: string = DEFAULT_LINT_CONFIG): Promise<LintReport> {
  const resolver = new SpecResolver(specPath);
  const absolute = resolver.root;
  await resolver.rootBytes();
  const config = await lintConfig(configPath);
  // Lint first, then bundle with the same resolver: lint leaves the parsed documents as they are, so the bundle
  // reuses them (bundling rewrites them in place, so the other order parsed every document twice).
  let linted: NormalizedProblem[];
  try {
    linted = await lint({ ref: absolute, config, externalRefResolver: resolver });
  } catch (error) {
    // A document Redocly cannot lint at all (not YAML, not an object): the loader's error says why, with its line.
    assertOpenApi31(absolute, (await bundleSpec(specPath, config, resolver)).bundle.parsed);
    throw error;
  }
  const document = assertOpenApi31(absolute, await bundled(specPath, config, resolver));
  const problems = linted.map(fromRedocly);

  const context: LintContext = { file: absolute, display: relative(absolute), document, redoclyClean: !problems.some((p) => p.severity === 'error') };
  for (const check of DOCUMENT_CHECKS) problems.push(...check(context));
  return {
    specPath: absolute,
    problems,
    errors: problems.filter((p) => p.severity === 'error').length,
    warnings: problems.filter((p) => p.severity === 'warn').length,
  };
}

/** One line per problem: `file:line:col pointer [source/rule] message`. */
export function formatLintReport(report: LintReport): string {
  const lines = report.problems.map((p) => {
    const where = p.line === undefined ? p.file : `${p.file}:${p.line}:${p.column ?? 1}`;
    const by = p.rule ? `${p.source}/${p.rule}` : p.source;
    return `${p.severity === 'error' ? 'error' : 'warning'} ${where} ${p.pointer} [${by}] ${p.message.replace(/\s+/g, ' ').trim()}`;
  });
  lines.push(`${relative(report.specPath)}: ${report.errors} errors, ${report.warnings} warnings`);
  return lines.join('\n');
}
