/**
 * The one way spec text reaches generated code. Every string that comes from a spec is written through one of
 * these functions, chosen by where it lands, and comes out inert there: it can end neither the comment nor
 * the literal it sits in, and a name is either a checked identifier or quoted. Nothing else in the generators
 * concatenates spec text into code. See "A spec is untrusted input" in generators/README.md.
 *
 * Template literals and regular expressions are never written with spec text in them.
 */
import { IDENTIFIER, LONE_SURROGATE, nameProblem, type NameRole } from '../model/names.js';

/** Line terminators of ECMAScript (LF, CR, U+2028, U+2029); CRLF counts as one. */
const LINE_BREAKS = /\r\n|[\n\r\u2028\u2029]/g;
/** C0 controls except tab and LF, DEL, C1 controls, and the bidirectional overrides that reorder source text. */
const CONTROLS = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g;

function unicodeEscape(ch: string): string {
  return `\\u${ch.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/**
 * Spec prose as the body of a JSDoc comment: trimmed, every line break an LF, `*\/` written `*\\/` so that
 * the comment cannot end early, control characters shown as `\uXXXX`. Idempotent, so a doc assembled from
 * escaped parts can be escaped again as a whole.
 */
export function docText(text: string | undefined | null): string {
  return (text ?? '')
    .replace(LINE_BREAKS, '\n')
    .replace(CONTROLS, unicodeEscape)
    .replace(LONE_SURROGATE, unicodeEscape)
    .replace(/\*\//g, '*\\/')
    .trim();
}

/** Text on one `//` comment line: no line break of any kind survives. */
export function lineComment(text: string): string {
  return text.replace(/[\n\r\u2028\u2029]+/g, ' ').replace(CONTROLS, unicodeEscape).replace(LONE_SURROGATE, unicodeEscape);
}

const STRING_ESCAPES: Record<string, string> = { '\\': '\\\\', "'": "\\'", '\n': '\\n', '\r': '\\r', '\u2028': '\\u2028', '\u2029': '\\u2029' };

/**
 * A single-quoted JavaScript string literal of `value`. Quotes, backslashes and every line terminator are
 * escaped, and so are control characters and lone surrogates, so the literal is one line of valid UTF-8
 * that evaluates to `value`.
 */
export function stringLiteral(value: string): string {
  const body = value
    .replace(/[\\'\n\r\u2028\u2029]/g, (ch) => STRING_ESCAPES[ch]!)
    .replace(CONTROLS, unicodeEscape)
    .replace(LONE_SURROGATE, unicodeEscape);
  return `'${body}'`;
}

/**
 * A property name in an object literal, interface or type literal. Identifiers (and canonical array indexes)
 * stay bare unless `quoted`; anything else is a string literal. `__proto__` is written as a computed key
 * (`['__proto__']`): in an object literal a plain `__proto__:` would set the prototype instead of a property.
 */
export function propertyKey(name: string, options: { quoted?: boolean } = {}): string {
  if (name === '__proto__') return `[${stringLiteral(name)}]`;
  if (!options.quoted && (IDENTIFIER.test(name) || /^(0|[1-9][0-9]*)$/.test(name))) return name;
  return stringLiteral(name);
}

/**
 * A name from the spec written as code (a method, parameter, class, constant or type name). The model has
 * already refused every unfit name with a pointer (model/names.ts); this guard makes sure no target writes one
 * that bypassed it.
 */
export function identifier(name: string, role: NameRole = 'member'): string {
  const problem = nameProblem(name, role === 'type' ? 'binding' : role);
  if (problem !== null) throw new Error(`gen-card-api: refusing to write ${JSON.stringify(name)} as an identifier: ${problem}`);
  return name;
}

/**
 * A JSON value (a spec example) as a JavaScript expression in JSON layout: `JSON.stringify` with `indent`
 * spaces, except that a `__proto__` key is written as a computed key (so that it stays an own property) and
 * U+2028/U+2029 are escaped.
 */
export function jsonLiteral(value: unknown, indent = 2): string {
  const text = JSON.stringify(value, null, indent) ?? 'undefined';
  // Keys open their line in indented JSON, and no string value holds a raw line break, so this only sees keys.
  return text.replace(/^(\s*)"__proto__":/gm, '$1["__proto__"]:').replace(/[\u2028\u2029]/g, unicodeEscape);
}
