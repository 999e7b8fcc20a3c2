/**
 * terminalSafe and jsonLine (packages/cli/src/terminal.ts), the one place the CLI makes outside text safe for a
 * terminal (issue 31): a table of what each kind of character becomes, then properties over arbitrary strings.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonLine, terminalSafe } from '../../packages/cli/src/terminal.js';
import { RAW_TERMINAL_CONTROL, terminalHostileText } from '../helpers/hostile-payloads.js';

describe('terminalSafe', () => {
  it.each([
    ['the issue\'s request_id', 'req_1\x1b]0;owned\x07\x1b[2J all checks passed\r\x1b[1A', 'req_1\\x1b]0;owned\\x07\\x1b[2J all checks passed\\r\\x1b[1A'],
    ['tab, line feed and carriage return by name', 'a\tb\nc\rd', 'a\\tb\\nc\\rd'],
    ['NUL, backspace, DEL', '\x00\b\x7f', '\\x00\\x08\\x7f'],
    ['C1 controls (CSI, NEL)', '\x9b2J\x85', '\\x9b2J\\x85'],
    ['bidi overrides and isolates', 'a\u202eb\u2066c\u2069\u200f\u061c', 'a\\u202eb\\u2066c\\u2069\\u200f\\u061c'],
    ['line and paragraph separators', '\u2028\u2029', '\\u2028\\u2029'],
    ['lone surrogates', '\ud800x\udfff', '\\ud800x\\udfff'],
    ['text of any script, emoji, combining marks and backslashes, untouched', 'Zoë 東京 😀 e\u0301 C:\\path \\x1b', 'Zoë 東京 😀 e\u0301 C:\\path \\x1b'],
  ])('%s', (_name, input, output) => {
    expect(terminalSafe(input)).toBe(output);
  });

  it('leaves no character a terminal acts on, and changes nothing else', () => {
    fc.assert(
      fc.property(terminalHostileText, (text) => {
        const safe = terminalSafe(text);
        expect(safe).not.toMatch(RAW_TERMINAL_CONTROL);
        if (!RAW_TERMINAL_CONTROL.test(text)) expect(safe).toBe(text);
        expect(terminalSafe(safe)).toBe(safe);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('jsonLine', () => {
  it('is JSON of the same value, one line, with no character a terminal acts on', () => {
    fc.assert(
      fc.property(fc.dictionary(terminalHostileText, fc.oneof(terminalHostileText, fc.integer(), fc.array(terminalHostileText, { maxLength: 3 }))), (value) => {
        const line = jsonLine(value);
        expect(line).not.toMatch(RAW_TERMINAL_CONTROL);
        expect(JSON.parse(line)).toEqual(value);
      }),
      { numRuns: 1000 },
    );
  });
});
