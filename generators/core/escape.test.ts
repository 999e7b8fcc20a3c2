/**
 * Each context of escape.ts, fed the named hostile payloads and arbitrary strings: the output parses as exactly
 * the construct it is meant to be (one comment, one string literal, one key), evaluates to the input where it
 * is a value, and never runs the payload (the `__hostile` sentinel stays silent).
 */
import fc from 'fast-check';
import ts from 'typescript';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { hostileText, PAYLOADS } from '../../test/helpers/hostile-payloads.js';
import { generatedHeader } from './target.js';
import { docText, identifier, jsonLiteral, lineComment, propertyKey, stringLiteral } from './escape.js';

const tripped: string[] = [];
beforeEach(() => {
  tripped.length = 0;
  (globalThis as { __hostile?: (tag: string) => void }).__hostile = (tag) => tripped.push(tag);
});
afterEach(() => {
  delete (globalThis as { __hostile?: unknown }).__hostile;
  expect(tripped).toEqual([]);
});

const VALUES = PAYLOADS.map(([, value]) => value);

/** Parses TypeScript; fails on any syntax error. */
function parse(code: string): ts.SourceFile {
  const file = ts.createSourceFile('probe.ts', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const diagnostics = (file as unknown as { parseDiagnostics: ts.Diagnostic[] }).parseDiagnostics;
  expect(diagnostics.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n')), code).toEqual([]);
  return file;
}

/** Evaluates an expression of generated code. */
function evaluate(expression: string): unknown {
  return new Function(`return (${expression});`)();
}

/** One property per context, over the named payloads and arbitrary strings. */
function forEveryString(check: (value: string) => void): void {
  for (const value of VALUES) check(value);
  fc.assert(fc.property(hostileText, (value) => check(value)), { numRuns: 300 });
}

describe('stringLiteral', () => {
  it('is one single-line string literal token whose value is the input', () => {
    forEveryString((value) => {
      const literal = stringLiteral(value);
      expect(literal).not.toMatch(/[\n\r\u2028\u2029]/);
      const [statement] = parse(`export const x = ${literal};\n`).statements;
      const init = (statement as ts.VariableStatement).declarationList.declarations[0]!.initializer!;
      expect(ts.isStringLiteral(init)).toBe(true);
      expect((init as ts.StringLiteral).text).toBe(value);
      expect(evaluate(literal)).toBe(value);
    });
  });

  it('writes ordinary text as the previous printer did', () => {
    expect(stringLiteral("it's a \\ path\n")).toBe("'it\\'s a \\\\ path\\n'");
    expect(stringLiteral('tab\there')).toBe("'tab\there'");
  });
});

describe('docText', () => {
  it('stays inside the comment it is written into, and is idempotent', () => {
    forEveryString((value) => {
      const text = docText(value);
      expect(text).not.toContain('*/');
      expect(docText(text)).toBe(text);
      for (const code of [`/** ${text} */\nexport const x = 1;\n`, `/**\n * ${text.split('\n').join('\n * ')}\n */\nexport const x = 1;\n`]) {
        const file = parse(code);
        expect(file.statements).toHaveLength(1);
        expect(ts.getLeadingCommentRanges(code, 0)).toHaveLength(1);
      }
    });
  });

  it('keeps prose readable: trimmed, LF line breaks, `*/` shown as `*\\/`', () => {
    expect(docText('  a */ b\r\nc\rd\u2028e  ')).toBe('a *\\/ b\nc\nd\ne');
    expect(docText(undefined)).toBe('');
  });
});

describe('lineComment', () => {
  it('keeps a // comment on one line, also as the generated header', () => {
    forEveryString((value) => {
      for (const line of [`// ${lineComment(value)}`, generatedHeader(value)]) {
        const code = `${line}\nexport const x = 1;\n`;
        expect(parse(code).statements).toHaveLength(1);
        expect(ts.getLeadingCommentRanges(code, 0)).toHaveLength(1);
      }
    });
  });
});

describe('propertyKey', () => {
  it('names exactly one own property in an object literal, and parses in an interface', () => {
    forEveryString((value) => {
      for (const quoted of [false, true]) {
        const key = propertyKey(value, { quoted });
        const object = evaluate(`{ ${key}: 1 }`) as object;
        expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
        expect(Object.keys(object)).toEqual([value]);
        parse(`export interface I {\n  ${key}?: string;\n}\n`);
      }
    });
  });

  it('leaves identifiers and indexes bare unless quoted, and computes __proto__', () => {
    expect(propertyKey('card_uuid')).toBe('card_uuid');
    expect(propertyKey('200')).toBe('200');
    expect(propertyKey('x-y')).toBe("'x-y'");
    expect(propertyKey('card_uuid', { quoted: true })).toBe("'card_uuid'");
    expect(propertyKey('__proto__')).toBe("['__proto__']");
  });
});

describe('jsonLiteral', () => {
  it('evaluates to the same JSON value, own __proto__ keys included', () => {
    const withProto = JSON.parse('{"a": {"__proto__": {"b": "\u2028"}}, "__proto__": [1]}') as unknown;
    for (const value of [withProto, ...VALUES]) expect(evaluate(jsonLiteral(value))).toStrictEqual(value);
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(evaluate(jsonLiteral(value))).toStrictEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: 200 },
    );
  });
});

describe('identifier', () => {
  it('refuses everything the model would refuse, returns the rest', () => {
    for (const value of VALUES.filter((v) => !['class', 'ClientCore', 'components', 'Promise'].includes(v))) expect(() => identifier(value)).toThrow(/refusing to write/);
    expect(() => identifier('class', 'binding')).toThrow(/reserved word/);
    expect(identifier('class')).toBe('class');
    expect(identifier('cards')).toBe('cards');
  });
});
