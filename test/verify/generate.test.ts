/**
 * verify's request generator (packages/cli/src/verify/generate.ts) against the spec's own request schemas: what it
 * calls valid validates, each violation breaks its schema, and the pieces of a report that come from generated
 * values (curl lines) stay shell-safe and free of control characters. The cascade bookkeeping of the recorder too.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SPEC } from '../../generators/index.js';
import { CheckRecorder, FIXED_CHECKS } from '../../packages/cli/src/verify/checks.js';
import { ROOT } from '../helpers/spec.js';
import { bodyViolations, leafViolations, validValue } from '../../packages/cli/src/verify/generate.js';
import { shellQuote } from '../../packages/cli/src/verify/http.js';
import { VerifySpec } from '../../packages/cli/src/verify/spec.js';

const spec = await VerifySpec.load(DEFAULT_SPEC);
const doc = spec.document;
const bodies = ['CreateCardRequest', 'TopupCardRequest', 'CardActionRequest'].map((name) => [name, { $ref: `#/components/schemas/${name}` }] as const);

describe('the request generator', () => {
  it.each(bodies)('%s: every generated value validates', (_, schema) => {
    fc.assert(
      fc.property(validValue(doc, schema), (value) => {
        expect(spec.validator.errors(schema, value)).toEqual([]);
      }),
      { numRuns: 100 },
    );
  });

  it.each(bodies)('%s: every violation breaks the schema, whatever valid value it starts from', (_, schema) => {
    const violations = bodyViolations(doc, schema);
    expect(violations.length).toBeGreaterThan(3);
    fc.assert(
      fc.property(validValue(doc, schema), fc.integer({ min: 0, max: violations.length - 1 }), (value, i) => {
        expect(spec.validator.errors(schema, violations[i]!.apply(value)), violations[i]!.constraint).not.toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('names each constraint it breaks: required, unknown property, lengths, pattern, bounds', () => {
    const names = bodyViolations(doc, { $ref: '#/components/schemas/CreateCardRequest' }).map((v) => v.constraint);
    expect(names).toEqual(expect.arrayContaining(['required /card_product_id', 'additionalProperties false at /', 'minimum 1 at /card_product_id', 'maxLength 50 at /cardholder_first_name', 'minLength 1 at /cardholder_last_name']));
    expect(names.some((n) => n.startsWith('pattern') && n.endsWith('at /initial_topup_amount'))).toBe(true);
    expect(names.some((n) => n.startsWith('additionalProperties false at /billing_address'))).toBe(true);
  });

  it('on the wire (query and path), a string schema has no type to break; an integer one has', () => {
    const perPage = spec.queryParameter(spec.operation('listOrders'), 'per_page')!.schema;
    expect(leafViolations(doc, perPage, true).map((v) => [v.constraint, v.value])).toEqual([
      ['type integer', 'verify'],
      ['minimum 1', 0],
      ['maximum 100', 101],
      ['type integer (a fraction)', 1.5],
    ]);
    expect(leafViolations(doc, { type: 'string', maxLength: 3 }, true).map((v) => v.constraint)).toEqual(['maxLength 3']);
  });
});

describe('shell quoting of curl lines', () => {
  it('gives back the exact string through a shell, with no control character printed', () => {
    // One shell for every sample: each printed, then a NUL (which no sample holds).
    const values = fc.sample(fc.string({ unit: 'binary', maxLength: 30 }).filter((s) => !s.includes('\0')), 60);
    const quoted = values.map(shellQuote);
    for (const q of quoted) expect(q).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
    const out = execFileSync('bash', ['-c', quoted.map((q) => `printf '%s\\0' ${q}`).join('; ')]).toString('utf8');
    expect(out.split('\0').slice(0, -1)).toEqual(values);
  });
});

describe('the recorder: causes, not cascades', () => {
  it('a blocked check is skipped naming its cause; the cause says where else its fault showed', () => {
    const checks = new CheckRecorder([
      { id: 'cause', title: 'c', needs: 'read' },
      { id: 'effect', title: 'e', needs: 'read' },
    ]);
    checks.fail('cause', 'broken');
    checks.blocked('effect', 'cause', 'no delivery verified');
    const [cause, effect] = checks.results();
    expect(cause).toMatchObject({ status: 'fail', details: ['broken', 'the same fault also showed in effect (not counted there)'] });
    expect(effect).toMatchObject({ status: 'skipped', details: ['not judged: no delivery verified'] });
  });
});

describe('the README', () => {
  it('documents every check id verify reports, in catalogue order, and no other', () => {
    const readme = readFileSync(path.join(ROOT, 'packages/cli/README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## What `verify` checks'), readme.indexOf('## Exit codes'));
    const ids = [...section.matchAll(/^\| `([a-z][\w.<>-]*)` \|/gm)].map((m) => m[1]);
    expect(ids).toEqual([...FIXED_CHECKS.map((c) => c.id), 'list.<operationId>']);
  });
});
