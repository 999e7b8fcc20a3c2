/** The documented catalogue (docs/diff-checks.md) and the one in code are the same table; ids are stable. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { CHECK_IDS, CHECKS, LEVELS } from '../../generators/diff/index.js';
import { DOC, withTable } from '../../scripts/diff-checks-doc.js';
import { ROOT } from './helpers.js';

describe('the check catalogue', () => {
  it('docs/diff-checks.md carries exactly the catalogue of the code (run scripts/diff-checks-doc.ts after a change)', () => {
    const text = readFileSync(DOC, 'utf8');
    expect(text).toBe(withTable(text));
    for (const id of CHECK_IDS) expect(text).toContain(`| \`${id}\` | ${CHECKS[id].level} |`);
  });

  it('ids are kebab-case, levels are known, every entry has a meaning and an example', () => {
    for (const id of CHECK_IDS) {
      expect(id).toMatch(/^[a-z]+(-[a-z]+)*$/);
      expect(LEVELS).toContain(CHECKS[id].level);
      expect(CHECKS[id].meaning.length).toBeGreaterThan(10);
      expect(CHECKS[id].example.length).toBeGreaterThan(3);
    }
  });

  it('the README documents the CI recipe and links the catalogue', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toContain('## Checking spec changes in CI');
    expect(readme).toContain('gen-card-api diff origin/main:spec/openapi.yaml spec/openapi.yaml --format github');
    expect(readme).toContain('docs/diff-checks.md');
  });
});
