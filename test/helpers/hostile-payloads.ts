/**
 * Hostile strings for the issue-22 tests: named payloads that try to end the context they land in, and
 * fast-check arbitraries biased towards the characters that do. Injected code calls `globalThis.__hostile`,
 * which the tests arm as a sentinel.
 */
import fc from 'fast-check';

/** Calls the sentinel; any generated module that runs it has executed spec text. */
const TRIP = (tag: string): string => `globalThis.__hostile?.('${tag}')`;

/** Named payloads: each tries to end the context it lands in (comment, literal, line, template, HTML) or to be a name with a meaning. */
export const PAYLOADS: ReadonlyArray<readonly [string, string]> = [
  ['end a JSDoc comment', `*/ ${TRIP('jsdoc')}; /*`],
  ['end a comment with console.log', "*/ console.log('x'); /*"],
  ['end a single-quoted literal', `'; ${TRIP('single')}; '`],
  ["end a literal with process.exit", "'; process.exit(1); '"],
  ['end a double-quoted literal', `"; ${TRIP('double')}; "`],
  ['template placeholder', `\${${TRIP('template')}}`],
  ['end a template literal', `\`; ${TRIP('backtick')}; \``],
  ['close a script element', `</script><script>${TRIP('script')}</script>`],
  ['LF then code', `x\n${TRIP('lf')};`],
  ['CR then code', `x\r${TRIP('cr')};`],
  ['CRLF then code', `x\r\n${TRIP('crlf')};`],
  ['U+2028 then code', `x\u2028${TRIP('ls')};`],
  ['U+2029 then code', `x\u2029${TRIP('ps')};`],
  ['line comment then code', `// x\n${TRIP('line')};`],
  ['escaped quote', `\\'; ${TRIP('backslash')}; //`],
  ['trailing backslash', 'x\\'],
  ['star', '*'],
  ['slash', '/'],
  ['NUL and controls', 'a\u0000b\u001bc\u007f'],
  ['bidirectional override', 'a\u202Eb\u2066c'],
  ['lone surrogate', 'a\uD800b'],
  ['empty', ''],
  ['__proto__', '__proto__'],
  ['constructor', 'constructor'],
  ['then', 'then'],
  ['toString', 'toString'],
  ['hasOwnProperty', 'hasOwnProperty'],
  ['class', 'class'],
  ['ClientCore', 'ClientCore'],
  ['components', 'components'],
  ['Promise', 'Promise'],
];

/** Characters that mean something in generated code, mixed with arbitrary ones (lone surrogates included). */
const DANGEROUS = ['*', '/', "'", '"', '`', '$', '{', '}', '\\', '\n', '\r', '\u2028', '\u2029', '<', '>', ';', '(', ')', ' ', '\u0000', '\uD800', '_', ':', '.'];

/** Arbitrary strings, biased towards the characters that end comments and literals (lone surrogates included). */
export const hostileText: fc.Arbitrary<string> = fc.string({
  unit: fc.oneof(fc.constantFrom(...DANGEROUS), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }), fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c))),
  maxLength: 24,
});

/** Arbitrary names: plain identifiers (some accepted), reserved and clashing words, and arbitrary text. */
export const hostileName: fc.Arbitrary<string> = fc.oneof(
  fc.stringMatching(/^[A-Za-z_$][A-Za-z0-9_$]{0,10}$/),
  fc.constantFrom(...PAYLOADS.map(([, p]) => p), 'default', 'delete', 'arguments', 'Record', 'paths', 'EventMap', 'handlers', 'query', 'options', 'OPERATIONS'),
  hostileText,
);

/** As {@link hostileText}, but well-formed Unicode: text that the model accepts, so that it reaches the output. */
export const wellFormedText: fc.Arbitrary<string> = hostileText.map((s) => s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));

/** Sequences a terminal acts on (issue 31): title, clear, cursor moves, CR over the line, C1 CSI, bidi overrides, separators. */
export const TERMINAL_ATTACKS = ['\x1b]0;owned\x07', '\x1b[2J', '\x1b[1A', '\r', '\n', '\r\n', '\b', '\t', '\x00', '\x7f', '\x9b2J', '\x85', '\u202e', '\u2066', '\u2028', '\u2029', '\u061c', '\ud800', '\udfff'];

/** Arbitrary text biased towards what a terminal acts on: any UTF-16 unit (controls and lone surrogates included) and astral characters. */
export const terminalHostileText: fc.Arbitrary<string> = fc.string({
  unit: fc.oneof(fc.constantFrom(...TERMINAL_ATTACKS), fc.integer({ min: 0, max: 0x9f }).map((c) => String.fromCharCode(c)), fc.integer({ min: 0, max: 0xffff }).map((c) => String.fromCharCode(c)), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })),
  maxLength: 24,
});

/** Arbitrary bytes an HTTP header value may carry (tab, visible ASCII, and 0x80 to 0xff, which fetch reads as C1 controls and Latin-1). */
export const headerHostileText: fc.Arbitrary<string> = fc.string({
  unit: fc.oneof(fc.constantFrom('\t', '\x9b', '\x85', '\x9d'), fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c))),
  minLength: 1,
  maxLength: 24,
});

/** A character the terminal would act on (what `terminalSafe` escapes), the line feed included. */
export const RAW_TERMINAL_CONTROL = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]/u;
