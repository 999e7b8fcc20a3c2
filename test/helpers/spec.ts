/** Helpers for tests that need a modified copy of the spec in a temporary folder inside the repo. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { parse, stringify } from 'yaml';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const SPEC_PATH = path.join(ROOT, 'spec/openapi.yaml');

/** A fresh temp folder under `.tmp/` (inside the repo, so that node_modules resolve from it). */
export function tempDir(prefix: string): { dir: string; cleanup: () => void } {
  mkdirSync(path.join(ROOT, '.tmp'), { recursive: true });
  const dir = mkdtempSync(path.join(ROOT, '.tmp', `${prefix}-`));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Parses the spec, lets `edit` change it, writes the copy as `openapi.yaml` in `dir`. */
export function writeSpecCopy(dir: string, edit: (doc: any) => void): string {
  const doc = parse(readFileSync(SPEC_PATH, 'utf8'));
  edit(doc);
  const file = path.join(dir, 'openapi.yaml');
  writeFileSync(file, stringify(doc, { lineWidth: 0 }));
  return file;
}
