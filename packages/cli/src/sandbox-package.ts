/**
 * The sandbox is its own package (@card-api/sandbox: Fastify, SQLite through `node:sqlite`), so that
 * generating code installs neither (docs/decisions.md, "Packaging"). Commands that run a sandbox load it here:
 * installed next to gen-card-api, or in the project of the working directory (`npx gen-card-api` runs from npm's
 * cache, where a project's own node_modules is not on the resolution path). Missing, it is named in one line.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export const SANDBOX_PACKAGE = '@card-api/sandbox';

/** The one line a command prints (after its name) when the sandbox package is not installed (exit 2). */
export function sandboxMissingMessage(): string {
  return `needs ${SANDBOX_PACKAGE}, installed on its own so that generating code never brings a server or a database: run \`npm install -D ${SANDBOX_PACKAGE}\`, or \`npx ${SANDBOX_PACKAGE}\``;
}

/** Thrown when neither gen-card-api's own resolution nor the working directory's project finds the package. */
export class SandboxMissingError extends Error {
  override readonly name = 'SandboxMissingError';
}

function isMissing(error: unknown, specifier: string): boolean {
  const err = error as NodeJS.ErrnoException;
  return (err.code === 'ERR_MODULE_NOT_FOUND' || err.code === 'MODULE_NOT_FOUND') && String(err.message).includes(specifier.split('/').slice(0, 2).join('/'));
}

/**
 * Imports `@card-api/sandbox` or one of its subpaths (`/cli`). `from` is where a project's own install is looked
 * for (default: the working directory). Errors other than "not installed" (a sandbox that cannot load, say)
 * propagate with their cause.
 */
export async function importSandbox<T>(subpath: '' | '/cli', from: string = process.cwd()): Promise<T> {
  const specifier = `${SANDBOX_PACKAGE}${subpath}`;
  try {
    return (await import(specifier)) as T;
  } catch (error) {
    if (!isMissing(error, specifier)) throw error;
  }
  let resolved: string;
  try {
    resolved = createRequire(path.join(path.resolve(from), 'noop.js')).resolve(specifier);
  } catch (error) {
    if (isMissing(error, specifier)) throw new SandboxMissingError(specifier);
    throw error;
  }
  return (await import(pathToFileURL(resolved).href)) as T;
}
