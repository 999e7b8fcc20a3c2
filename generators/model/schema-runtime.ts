/**
 * What the generated server's runtime (templates/server/validation.ts: Ajv 2020 with ajv-formats, Ajv's default
 * `unicodeRegExp`) makes of the spec's schemas, checked once here for both the server generator and `lint`:
 * - a `format` ajv-formats does not define (`iban`: legal OpenAPI, formats are open-ended) makes Ajv's strict mode
 *   refuse the schema when Fastify builds it, so the server cannot start. The generator lists those formats in the
 *   plugin, and the runtime registers each as a no-op (the value is a string like any other; a format is an
 *   annotation unless a validator is declared for it);
 * - a `pattern` (or a `patternProperties` key) that `new RegExp(pattern, 'u')` refuses (`[\w-.]`, `\-`, a lone
 *   `{`: valid without the `u` flag, errors with it) cannot be compiled at all: the server generator refuses it.
 */
import { formatNames } from 'ajv-formats/dist/formats.js';
import { childPath, pathPointer, type PointerPath } from './errors.js';
import { compareStrings } from './sort.js';

/**
 * The formats ajv-formats defines (its full mode, as the runtime installs it), read from its formats module alone:
 * the package's entry loads all of Ajv (its `limit` keywords), some 60 modules `lint` has no use for.
 */
const KNOWN_FORMATS: ReadonlySet<string> = new Set(formatNames);

function knownFormat(name: string): boolean {
  return KNOWN_FORMATS.has(name);
}

export interface SchemaRuntimeReport {
  /** Formats the spec's schemas use that ajv-formats does not define, sorted, each once. */
  unknownFormats: string[];
  /** Patterns the runtime cannot compile: the pointer of the `pattern` (or `patternProperties` key) and why. */
  patternProblems: Array<{ pointer: string; reason: string }>;
}

/** Why the runtime cannot compile `pattern`, or null. */
export function patternProblem(pattern: string): string | null {
  try {
    new RegExp(pattern, 'u');
    return null;
  } catch (error) {
    const detail = (error as Error).message.replace(/^Invalid regular expression: /, '');
    return `the pattern ${JSON.stringify(pattern)} does not compile as the generated server compiles it (a JavaScript RegExp with the u flag, as Ajv does): ${detail}`;
  }
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);
/** Keys whose values are data, not schemas: a `pattern` or `format` inside them is an example's field. */
const DATA = new Set(['example', 'examples', 'default', 'const', 'enum']);

/** The formats and patterns of every schema in a bundled document (outside examples and `x-` extensions). */
export function schemaRuntimeReport(document: unknown): SchemaRuntimeReport {
  const unknown = new Set<string>();
  const patternProblems: SchemaRuntimeReport['patternProblems'] = [];
  const walk = (node: unknown, where: PointerPath, depth: number): void => {
    if (depth > 256) return;
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, childPath(where, i), depth + 1));
      return;
    }
    if (!isNode(node)) return;
    if (typeof node.format === 'string' && !knownFormat(node.format)) unknown.add(node.format);
    if (typeof node.pattern === 'string') {
      const reason = patternProblem(node.pattern);
      if (reason !== null) patternProblems.push({ pointer: pathPointer(childPath(where, 'pattern')), reason });
    }
    if (isNode(node.patternProperties)) {
      for (const key of Object.keys(node.patternProperties)) {
        const reason = patternProblem(key);
        if (reason !== null) patternProblems.push({ pointer: pathPointer(childPath(childPath(where, 'patternProperties'), key)), reason });
      }
    }
    for (const [key, value] of Object.entries(node)) {
      if (DATA.has(key) || key.startsWith('x-')) continue;
      walk(value, childPath(where, key), depth + 1);
    }
  };
  walk(document, null, 0);
  return { unknownFormats: [...unknown].sort(compareStrings), patternProblems };
}
