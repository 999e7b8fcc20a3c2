/**
 * JSON values → TypeScript literal text, deterministic and readable: identifier keys unquoted, single-quoted
 * strings, small flat values on one line, larger ones one entry per line. Key order is the value's own (the
 * callers build their objects in a fixed order), so the same model always prints the same bytes.
 */
import { docText, identifier, propertyKey, stringLiteral } from '../core/escape.js';

const MAX_INLINE = 96;

/** Prints `value` as a literal; `indent` is the indentation of the line the literal starts on. */
export function toLiteral(value: unknown, indent = ''): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return stringLiteral(value);
  if (typeof value === 'number' || typeof value === 'boolean') return JSON.stringify(value);
  if (value === undefined) return 'undefined';
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    const items = value.map((item) => toLiteral(item, inner));
    const flat = `[${items.join(', ')}]`;
    if (!flat.includes('\n') && flat.length + indent.length <= MAX_INLINE) return flat;
    return `[\n${items.map((item) => `${inner}${item},`).join('\n')}\n${indent}]`;
  }
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    if (entries.length === 0) return '{}';
    const items = entries.map(([k, v]) => `${propertyKey(k)}: ${toLiteral(v, inner)}`);
    const flat = `{ ${items.join(', ')} }`;
    if (!flat.includes('\n') && flat.length + indent.length <= MAX_INLINE) return flat;
    return `{\n${items.map((item) => `${inner}${item},`).join('\n')}\n${indent}}`;
  }
  throw new TypeError(`cannot print a ${typeof value} as a literal`);
}

/**
 * `/** doc *\/ export const name: type = <literal>;` as raw statement text. Raw, because ts-morph re-indents
 * the continuation lines of an initializer written through a structure (a hanging indent), which would
 * misalign every line of a multi-line literal.
 */
export function exportedConst(text: string, name: string, type: string, initializer: string): string {
  const doc = docText(text);
  const jsdoc = doc.includes('\n') ? `/**\n${doc.split('\n').map((line) => ` *${line ? ` ${line}` : ''}`).join('\n')}\n */` : `/** ${doc} */`;
  return `\n${jsdoc}\nexport const ${identifier(name, 'binding')}: ${type} = ${initializer};`;
}
