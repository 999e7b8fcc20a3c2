/**
 * Where the files the generators read at run time live: the bundled spec, `templates/`, the lint configuration,
 * and the documents the CLI names in its help and errors. From source that is the repository root; in the
 * published `gen-card-api` package it is `dist/assets/`, which the build fills with the same files
 * (scripts/build.ts). Nothing else in the generators guesses paths.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

function findAssetRoot(from: string): string {
  // Walk up from this module (generators/core/ from source, dist/ or dist/chunks/ when bundled), looking at each
  // folder and its assets/.
  const candidates: string[] = [];
  for (let dir = from; ; dir = path.dirname(dir)) {
    candidates.push(dir, path.join(dir, 'assets'));
    if (path.dirname(dir) === dir) break;
  }
  const found = candidates.find((dir) => existsSync(path.join(dir, 'spec', 'openapi.yaml')) && existsSync(path.join(dir, 'templates')));
  if (found === undefined) {
    throw new Error(`gen-card-api: cannot find its bundled spec and templates near ${from}; the installation is incomplete (reinstall gen-card-api)`);
  }
  return found;
}

/** The folder that holds `spec/`, `templates/` and `redocly.yaml`. */
export const ASSET_ROOT = findAssetRoot(path.dirname(fileURLToPath(import.meta.url)));

/**
 * The card-api-kit checkout the generators run from, when they do (its `packages/` is what `all`, `check` and a
 * target without `--out` write); `null` in an installed `gen-card-api`, which only writes where it is told.
 */
export const WORKSPACE_ROOT: string | null = existsSync(path.join(ASSET_ROOT, 'packages', 'client', 'package.json')) ? ASSET_ROOT : null;

/** The folder of the bundled spec, templates and lint configuration (the checkout, or `dist/assets/`). */
export const REPO_ROOT = ASSET_ROOT;
/** The bundled spec: what every command reads without `--spec`. */
export const DEFAULT_SPEC = path.join(ASSET_ROOT, 'spec/openapi.yaml');
/** `lint`'s Redocly configuration. */
export const DEFAULT_LINT_CONFIG = path.join(ASSET_ROOT, 'redocly.yaml');
/** The sandbox control API's document, relative to {@link REPO_ROOT}. */
export const CONTROL_SPEC = 'spec/sandbox/control.yaml';

/**
 * The documents the CLI names in its help and messages (and the bundled spec names in its description), by their
 * path from the asset root. The build copies exactly these into `dist/assets/`, so a name printed by an installed
 * `gen-card-api` is a file on the user's disk.
 */
export const SHIPPED_DOCS = ['docs/diff-checks.md', 'docs/decisions.md', 'generators/README.md'] as const;
export type ShippedDoc = (typeof SHIPPED_DOCS)[number];

/**
 * Where the user finds a shipped document: its path from the working directory (`docs/diff-checks.md` in the
 * checkout, `node_modules/gen-card-api/dist/assets/docs/diff-checks.md` in a project), or the absolute path when that
 * is shorter (`npx` runs from npm's cache).
 */
export function docPath(doc: ShippedDoc, cwd: string = process.cwd()): string {
  const full = path.join(ASSET_ROOT, doc);
  const relative = path.relative(cwd, full);
  return relative.length < full.length ? relative.split(path.sep).join('/') : full;
}
