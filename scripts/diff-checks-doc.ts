/**
 * Rewrites the check table of docs/diff-checks.md from the catalogue in generators/diff/catalogue.ts
 * (test/diff/catalogue.test.ts fails when they disagree). Run: node --import tsx scripts/diff-checks-doc.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderCatalogueTable } from '../generators/diff/index.js';

export const DOC = path.resolve(import.meta.dirname, '../docs/diff-checks.md');
const START = '<!-- checks:start (generated from generators/diff/catalogue.ts by scripts/diff-checks-doc.ts) -->';
const END = '<!-- checks:end -->';

export function withTable(text: string): string {
  const a = text.indexOf(START);
  const b = text.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${DOC} lacks the markers ${START} … ${END}`);
  return `${text.slice(0, a + START.length)}\n${renderCatalogueTable()}\n${text.slice(b)}`;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  writeFileSync(DOC, withTable(readFileSync(DOC, 'utf8')));
  console.log(`wrote ${path.relative(process.cwd(), DOC)}`);
}
