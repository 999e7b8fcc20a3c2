/**
 * How `listen`, `trigger` and `events` fail: a {@link CliError} is printed as the error and one hint line and exits
 * 2 (usage, input or could not run). These commands never exit 1: none of them is a check.
 *
 * What they print is full of the sandbox's strings (ids, statuses, error messages, event names), so the console
 * writer is where they are made safe: every line written goes through `terminalSafe`, which escapes every control
 * character, line feed included. A line is one line: output that has several is written line by line (a
 * CliError's `details`), so nothing a server sends can start a line of its own.
 */
import { terminalSafe } from '../terminal.js';

/** A failure the user can act on: bad input, a sandbox that cannot be reached, a refusal of the sandbox. */
export class CliError extends Error {
  override readonly name = 'CliError';
  /** One line telling the user what to do next. */
  readonly hint: string | undefined;
  /** Lines printed under the message, one each (every problem of a fixture). */
  readonly details: readonly string[];

  constructor(message: string, hint?: string, details: readonly string[] = []) {
    super(message);
    this.hint = hint;
    this.details = details;
  }
}

/** An http:// or https:// URL given as `option`; a CliError with `hint` otherwise. */
export function httpUrl(value: string, option: string, hint: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new CliError(`${option} ${JSON.stringify(value)} is not a URL`, hint);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CliError(`${option} must be http:// or https://, not ${url.protocol}`, hint);
  return url;
}

/** Where a command writes: `out` is stdout (results, one line each), `log` is stderr (progress, notes, errors); a line holds no line break. */
export interface Output {
  out(line: string): void;
  log(line: string): void;
}

export const consoleOutput: Output = {
  out: (line) => process.stdout.write(`${terminalSafe(line)}\n`),
  log: (line) => process.stderr.write(`${terminalSafe(line)}\n`),
};

/**
 * Runs a command's body: a {@link CliError} (or any other error: these commands have no "check failed" outcome)
 * prints `gen-card-api <command>: <message>`, its details and its hint on stderr and sets exit code 2.
 */
export async function runCommand(command: string, body: () => Promise<void>, output: Output = consoleOutput): Promise<void> {
  try {
    await body();
  } catch (error) {
    output.log(`gen-card-api ${command}: ${error instanceof Error ? error.message : String(error)}`);
    if (error instanceof CliError) for (const detail of error.details) output.log(`  ${detail}`);
    if (error instanceof CliError && error.hint !== undefined) output.log(`  ${error.hint}`);
    process.exitCode = 2;
  }
}
