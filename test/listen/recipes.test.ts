/**
 * `trigger` follows the spec: one recipe per webhook event, no recipe for an event the spec lacks, every
 * operation a recipe calls exists, and an event added to the spec gets a did-you-mean entry and a clear "no recipe
 * yet" until its recipe is written. Also the did-you-mean and glob helpers `listen` and `events` share.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../generators/model/index.js';
import { CONTROL_SPEC, DEFAULT_SPEC, REPO_ROOT } from '../../generators/index.js';
import { API_SPEC_FILE, CONTROL_SPEC_FILE, indexDocs, loadDocs } from '../../packages/cli/src/sandbox-tools/docs.js';
import { CliError } from '../../packages/cli/src/sandbox-tools/errors.js';
import { compareDecimal, RECIPES, recipeCoverage } from '../../packages/cli/src/sandbox-tools/recipes.js';
import { expandGlobs, suggest } from '../../packages/cli/src/sandbox-tools/suggest.js';
import { recipeFor, runTrigger } from '../../packages/cli/src/sandbox-tools/trigger.js';
import { ROOT, tempDir, writeSpecCopy } from '../helpers/spec.js';

const docs = await loadDocs();
const cleanups: Array<() => void> = [];
afterAll(() => cleanups.forEach((c) => c()));

describe('--origin: the causes of an event with several (issue 33)', () => {
  const quiet = { out: () => {}, log: () => {} };
  // An address nothing listens on: the refusals come before any call.
  const target = { baseUrl: 'http://127.0.0.1:9/api/v1', token: 'sbx_sk_unused' };

  it('offers the three actors of card.frozen, as the spec\'s ActionOrigin lists them (D9)', async () => {
    const spec = (await import('yaml')).parse(readFileSync(path.join(ROOT, 'spec/openapi.yaml'), 'utf8')) as { components: { schemas: { ActionOrigin: { enum: string[] } } } };
    expect(RECIPES['card.frozen']!.origins).toEqual(spec.components.schemas.ActionOrigin.enum);
  });

  it('refuses an origin the recipe does not know, and --origin on an event with one cause, before any call', async () => {
    await expect(runTrigger({ event: 'card.frozen', origin: 'bank', ...target }, quiet)).rejects.toThrow(/--origin "bank" is not one of workspace, platform_risk, issuer/);
    await expect(runTrigger({ event: 'card.closed', origin: 'issuer', ...target }, quiet)).rejects.toThrow(/--origin does not apply to card\.closed/);
  });
});

describe('recipes cover the spec', () => {
  it('has a recipe for every webhook event of the spec and none for an event it lacks', () => {
    expect(docs.events).toHaveLength(14);
    expect(recipeCoverage(docs.events)).toEqual({ missing: [], extra: [] });
    expect(Object.keys(RECIPES).sort()).toEqual(docs.events);
  });

  it('calls only operations of the spec or the control document', () => {
    const source = readFileSync(path.join(ROOT, 'packages/cli/src/sandbox-tools/recipes.ts'), 'utf8');
    const named = [...source.matchAll(/\.call\('([A-Za-z]+)'|(?:onPurchase|cardWrite)\(ctx, '([A-Za-z]+)'/g)].map((m) => m[1] ?? m[2]!);
    expect(named.length).toBeGreaterThan(15);
    expect(named.filter((id) => docs.operation(id) === undefined)).toEqual([]);
  });

  it('reads the same files as the generators', () => {
    expect(API_SPEC_FILE).toBe(DEFAULT_SPEC);
    expect(CONTROL_SPEC_FILE).toBe(path.join(REPO_ROOT, CONTROL_SPEC));
  });

  it('gives an event added to the spec a did-you-mean entry and "no recipe yet", and flags it as missing', async () => {
    const { dir, cleanup } = tempDir('trigger-new-event');
    cleanups.push(cleanup);
    const spec = writeSpecCopy(dir, (doc) => {
      const schema = structuredClone(doc.components.schemas.CardFrozenEvent);
      schema.description = 'The `card.renamed` event.';
      schema.allOf[1].properties.event.const = 'card.renamed';
      doc.components.schemas.CardRenamedEvent = schema;
      const hook = structuredClone(doc.webhooks['card.frozen']);
      hook.post.operationId = 'onCardRenamed';
      hook.post.requestBody.content['application/json'] = { schema: { $ref: '#/components/schemas/CardRenamedEvent' } };
      doc.webhooks['card.renamed'] = hook;
    });
    const extended = indexDocs(await loadModel(spec), docs.control);
    expect(extended.events).toContain('card.renamed');
    expect(recipeCoverage(extended.events)).toEqual({ missing: ['card.renamed'], extra: [] });
    expect(() => recipeFor(extended, 'card.renamd')).toThrow(expect.objectContaining({ message: 'unknown event "card.renamd"', hint: 'did you mean card.renamed?' }));
    let error: unknown;
    try {
      recipeFor(extended, 'card.renamed');
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(CliError);
    expect((error as CliError).message).toMatch(/^no recipe yet for card\.renamed/);
  });

  it('flags a recipe for an event the spec no longer has', () => {
    expect(recipeCoverage(docs.events.filter((e) => e !== 'card.closed'))).toEqual({ missing: [], extra: ['card.closed'] });
  });
});

describe('did you mean', () => {
  it.each([
    ['card.transaction.declinded', ['card.transaction.declined']],
    ['declined', ['card.transaction.declined']],
    ['order.complete', ['order.completed']],
    ['card.frozn', ['card.frozen']],
    ['card.issued_secrets', ['card.issued.secrets']],
    ['refund', ['card.transaction.refunded']],
    ['something.else.entirely', []],
  ])('%s → %j', (input, expected) => {
    expect(suggest(input, docs.events)).toEqual(expected);
  });

  it('expands globs over the spec events, and refuses one that matches nothing', () => {
    const fail = (problem: { message: string; hint: string }): never => {
      throw new CliError(problem.message, problem.hint);
    };
    expect(expandGlobs('card.transaction.*', docs.events, fail)).toHaveLength(6);
    expect(expandGlobs('order.*, card.frozen', docs.events, fail)).toEqual(['card.frozen', 'order.completed', 'order.failed']);
    expect(expandGlobs('*.failed', docs.events, fail)).toEqual(['order.failed']);
    expect(() => expandGlobs('order.faild', docs.events, fail)).toThrow(expect.objectContaining({ hint: 'did you mean order.failed?' }));
  });

  it('compares money exactly', () => {
    expect(compareDecimal('100.00', '100')).toBe(0);
    expect(compareDecimal('10.5', '10.49')).toBe(1);
    expect(compareDecimal('9.99', '10.00')).toBe(-1);
  });
});
