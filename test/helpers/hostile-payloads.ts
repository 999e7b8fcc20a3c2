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
