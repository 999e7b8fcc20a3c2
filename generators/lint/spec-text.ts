/**
 * Lint rules for spec text that becomes code (issue 22). The generators write every string through
 * core/escape.ts and the model refuses names that cannot become code, so none of this can run; lint flags it
 * anyway, before any generator sees it, so that a spec change carrying it fails review:
 * - every problem the model would refuse (names, path keys, `$ref` roots, keys such as `toString`), with
 *   its pointer, from the model's own checks;
 * - text that has no business in its field: in labels (title, tag names), characters that would end a comment,
 *   template, markup or line (`*\/`, `/*`, backquote, `${`, `<`, `>`, backslash, control characters); in tokens
 *   (version, scopes, enum values, event, property and parameter names) quotes and `;` as well; in prose
 *   (summaries, descriptions) control characters only. Quotes stay legal in labels: ordinary titles use them.
 */
import { buildModel } from '../model/build.js';
import { childPath, pathPointer, SpecError, SpecErrors, type PointerPath } from '../model/errors.js';
import type { JsonObject } from '../model/load.js';
import type { LintProblem } from './lint-spec.js';

/** Control characters (tab, LF and CR aside), line and paragraph separators, bidirectional overrides. */
const CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F-\u009F\u2028\u2029\u202A-\u202E\u2066-\u2069]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const LABEL = /[\n\r\\`<>]|\*\/|\/\*|\$\{/;
const TOKEN = /['";]/;

export type TextKind = 'label' | 'token' | 'prose';

/** Why `text` does not belong in a field of `kind`, or null. */
export function textProblem(text: string, kind: TextKind): string | null {
  const control = CONTROL.exec(text);
  if (control) return `holds the control or invisible character U+${control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  if (kind === 'prose') return null;
  const label = LABEL.exec(text);
  if (label) return `holds ${JSON.stringify(label[0])}, which would end a comment, string, template or line in generated code; ${kind === 'label' ? 'labels' : 'names'} must not`;
  if (kind === 'token') {
    const token = TOKEN.exec(text);
    if (token) return `holds ${JSON.stringify(token[0])}; names and values that become literals must not`;
  }
  return null;
}

export interface TextProblem {
  pointer: string;
  message: string;
}

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);
const at = childPath;
/** The path of a fixed place in the document, `path('info', 'title')`. */
const path = (...keys: Array<string | number>): PointerPath => keys.reduce<PointerPath>(childPath, null);
const DATA = new Set(['example', 'examples', 'default', 'const']);
const PROSE = new Set(['summary', 'description']);
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** Every field of the document whose text becomes code or a comment, checked by its kind. */
export function specTextProblems(document: JsonObject): TextProblem[] {
  const problems: TextProblem[] = [];
  const check = (text: unknown, kind: TextKind, where: PointerPath, what: string): void => {
    if (typeof text !== 'string') return;
    const problem = textProblem(text, kind);
    if (problem !== null) problems.push({ pointer: pathPointer(where), message: `${what} ${problem}` });
  };
  const scopes = (security: unknown, base: PointerPath): void => {
    if (!Array.isArray(security)) return;
    security.forEach((requirement, i) => {
      if (!isNode(requirement)) return;
      for (const [scheme, list] of Object.entries(requirement)) {
        if (Array.isArray(list)) list.forEach((scope, j) => check(scope, 'token', at(at(at(base, i), scheme), j), 'the security scope'));
      }
    });
  };
  // The whole document, outside examples and `x-` extensions (data): prose, names, schemas.
  const walk = (node: unknown, where: PointerPath, depth: number): void => {
    if (depth > 256) return;
    if (Array.isArray(node)) {
      node.forEach((item, i) => walk(item, at(where, i), depth + 1));
      return;
    }
    if (!isNode(node)) return;
    if (typeof node.in === 'string') check(node.name, 'token', at(where, 'name'), 'the parameter name');
    const infoObject = where !== null && where.up === null && where.key === 'info';
    const operation = where !== null && METHODS.has(String(where.key));
    for (const [key, value] of Object.entries(node)) {
      const here = at(where, key);
      if (DATA.has(key) || key.startsWith('x-')) {
        if (key === 'x-enumDescriptions' && isNode(value)) {
          for (const [name, text] of Object.entries(value)) {
            check(name, 'token', at(here, name), 'the enum value');
            check(text, 'prose', at(here, name), 'the enum description');
            // A blank description makes generated docs fall back to the value itself.
            if (typeof text === 'string' && text.trim() === '') problems.push({ pointer: pathPointer(at(here, name)), message: `the description of the enum value ${JSON.stringify(name)} is blank` });
          }
        }
        continue;
      }
      if (PROSE.has(key) || (key === 'title' && !infoObject)) check(value, 'prose', here, `the ${key}`);
      if (key === 'enum' && Array.isArray(value)) value.forEach((v, i) => check(v, 'token', at(here, i), 'the enum value'));
      if (key === 'required' && Array.isArray(value)) value.forEach((v, i) => check(v, 'token', at(here, i), 'the required property name'));
      if (key === 'properties' && isNode(value)) for (const name of Object.keys(value)) check(name, 'token', at(here, name), 'the property name');
      if (key === 'security') scopes(value, here);
      if (key === 'tags' && Array.isArray(value) && operation) value.forEach((tag, i) => check(tag, 'label', at(here, i), 'the tag'));
      walk(value, here, depth + 1);
    }
  };
  const info = isNode(document.info) ? document.info : {};
  check(info.title, 'label', path('info', 'title'), 'the title');
  check(info.version, 'token', path('info', 'version'), 'the version');
  if (Array.isArray(document.tags)) document.tags.forEach((tag, i) => isNode(tag) && check(tag.name, 'label', path('tags', i, 'name'), 'the tag name'));
  if (isNode(document.webhooks)) for (const name of Object.keys(document.webhooks)) check(name, 'token', path('webhooks', name), 'the event name');
  const schemes = isNode(document.components) && isNode(document.components.securitySchemes) ? document.components.securitySchemes : {};
  for (const [scheme, definition] of Object.entries(schemes)) {
    const flows = isNode(definition) && isNode(definition.flows) ? definition.flows : {};
    for (const [flow, spec] of Object.entries(flows)) {
      const list = isNode(spec) && isNode(spec.scopes) ? spec.scopes : {};
      for (const scope of Object.keys(list)) check(scope, 'token', path('components', 'securitySchemes', scheme, 'flows', flow, 'scopes', scope), 'the security scope');
    }
  }
  walk(document, null, 0);
  return problems;
}

/**
 * The lint problems of both rule sets for a bundled document: the model's refusals (rule `model`) and the
 * text rules (rule `spec-text`), all errors.
 */
export function generatorProblems(file: string, displayFile: string, document: JsonObject): LintProblem[] {
  const problem = (pointer: string, rule: string, message: string): LintProblem => ({ source: 'gen-card-api', severity: 'error', file: displayFile, pointer, rule, message });
  const found: LintProblem[] = [];
  try {
    buildModel({ file, document, hash: '' });
  } catch (error) {
    const errors = error instanceof SpecErrors ? error.errors : error instanceof SpecError ? [error] : null;
    if (errors) found.push(...errors.map((e) => problem(e.pointer, 'model', e.reason)));
    else found.push(problem('#', 'model', `the generators' model cannot be built: ${error instanceof Error ? error.message : String(error)}`));
  }
  found.push(...specTextProblems(document).map((p) => problem(p.pointer, 'spec-text', p.message)));
  return found;
}
