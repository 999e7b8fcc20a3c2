/**
 * Text that came from outside the CLI (a server's answer, a webhook delivery, a fixture file) made safe to print on
 * a terminal. A terminal obeys what it is sent: ESC starts a sequence that can set the window title, clear the
 * screen or move the cursor, CR returns to the start of the line to overwrite it, BS backs over what was printed,
 * and a bidi override reorders what follows on terminals that implement bidi. A hostile server could then print
 * "all checks passed" over a failure. So every such character is shown escaped, never sent:
 *
 * - C0 controls (U+0000 to U+001F), DEL (U+007F) and C1 controls (U+0080 to U+009F: some terminals read U+009B as
 *   CSI): `\t`, `\n`, `\r` by name, the others as `\xHH` (`\x1b`);
 * - bidi controls (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069) and the Unicode line and paragraph
 *   separators (U+2028, U+2029), which some terminals and pagers break lines on: `\uHHHH` (`\u202e`);
 * - a lone surrogate (not a character; written as U+FFFD, it would hide what was sent): `\uHHHH`.
 *
 * A backslash is left as it is: the escapes are for reading, not for decoding back, and doubling every backslash
 * of a Windows path or a regular expression would make the common case worse to read. Everything else (letters
 * of any script, emoji, combining marks) prints as it came.
 */

/** One character the terminal would act on instead of showing, or a lone surrogate (with the `u` flag, a paired one is part of its character and does not match). */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]/gu;

const NAMED: Readonly<Record<string, string>> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

function escape(char: string): string {
  const named = NAMED[char];
  if (named !== undefined) return named;
  const code = char.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * One value from outside, safe to print on one line: every control character, line break included, shown
 * escaped (see the module comment), so that a value cannot start a line of its own either. Apply it where the
 * value enters a line the CLI prints, or to each whole line of a writer whose lines are one line each.
 *
 * @example
 * terminalSafe('req_1\x1b]0;pwned\x07\r\x1b[1APASS') // 'req_1\\x1b]0;pwned\\x07\\r\\x1b[1APASS'
 */
export function terminalSafe(text: string): string {
  return text.replace(UNSAFE, escape);
}

/**
 * A value as one line of JSON that is safe on a terminal and still the same JSON: `JSON.stringify` escapes C0
 * controls but leaves DEL, C1 controls, bidi controls and the line separators raw, so those are written as
 * `\uHHHH`, which JSON reads back as the same character.
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
