/**
 * Rewrites the check table and the policy table of docs/diff-checks.md from the catalogue in generators/diff/catalogue.ts
 * (test/diff/catalogue.test.ts fails when they disagree). Run: node --import tsx scripts/diff-checks-doc.ts
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { renderCatalogueTable, renderPolicyTable } from '../generators/diff/index.js';

export const DOC = path.resolve(import.meta.dirname, '../docs/diff-checks.md');
const BLOCKS = [
  { start: '<!-- checks:start (generated from generators/diff/catalogue.ts by scripts/diff-checks-doc.ts) -->', end: '<!-- checks:end -->', render: renderCatalogueTable },
  { start: '<!-- policy:start (generated from generators/diff/catalogue.ts by scripts/diff-checks-doc.ts) -->', end: '<!-- policy:end -->', render: renderPolicyTable },
];

export function withTable(text: string): string {
  let out = text;
  for (const { start, end, render } of BLOCKS) {
    const a = out.indexOf(start);
    const b = out.indexOf(end);
    if (a < 0 || b < a) throw new Error(`${DOC} lacks the markers ${start} … ${end}`);
    out = `${out.slice(0, a + start.length)}\n${render()}\n${out.slice(b)}`;
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  writeFileSync(DOC, withTable(readFileSync(DOC, 'utf8')));
  console.log(`wrote ${path.relative(process.cwd(), DOC)}`);
}
