/**
 * The CLI's exit-code contract (packages/cli/README.md, "Exit codes"): 0 success, 1 the check found something,
 * 2 usage, input or could not run. Only what `main` prints for an error lives here, so that commands can throw
 * without importing main.
 */

/** A usage mistake: printed as `gen-card-api <command>: <message>`, then (with `hint`) one line naming `--help`; exit 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
  readonly hint: boolean;

  constructor(message: string, options: { hint?: boolean } = {}) {
    super(message);
    this.hint = options.hint ?? true;
  }
}

/** Exit codes, by meaning. */
export const EXIT = { ok: 0, found: 1, usage: 2 } as const;

/** The hint line after a usage error, as git and openapi-typescript print one. */
export function usageHint(command: string): string {
  return `run '${command} --help' for usage`;
}
