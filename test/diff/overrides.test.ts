/** The override file: validation with pointers, scoping by `at`, first match wins, `ignore`, and the version rule after overrides. */
import { beforeAll, describe, expect, it } from 'vitest';
import { acknowledgmentLine, parseOverrides, runDiff } from '../../generators/diff/index.js';
import type { ApiModel, LoadedSpec } from '../../generators/model/index.js';
import { SpecErrors } from '../../generators/model/index.js';
import { realSpec, schemas, variant } from './helpers.js';

let spec: LoadedSpec;
let base: ApiModel;
let head: ApiModel;
/**
 * The fixture's premise: every write answers the Order itself (the spec's 202 is `AcceptedOrder` since D29), and the
 * base's Order requires `related_card_uuid` (the spec's no longer does, D29), so that the head's change is seen.
 */
const writesAnswerOrder = (d: any): void => {
  d.components.responses.OrderAccepted.content['application/json'].schema.properties.data = { $ref: '#/components/schemas/Order' };
  if (!schemas(d).Order.required.includes('related_card_uuid')) schemas(d).Order.required.push('related_card_uuid');
};

beforeAll(async () => {
  spec = await realSpec();
  base = variant(spec, writesAnswerOrder);
  // A breaking change in a schema shared by every write (Order) and one in a webhook payload.
  head = variant(spec, (d) => {
    writesAnswerOrder(d);
    schemas(d).Order.required = schemas(d).Order.required.filter((n: string) => n !== 'related_card_uuid');
    delete schemas(d).OrderCompletedData.properties.card_uuid;
  });
});

const diff = (entries: unknown[]) => runDiff({ label: 'base', model: base }, { label: 'head', model: head }, { overrides: parseOverrides({ overrides: entries }, 'overrides.yaml') });

describe('overrides', () => {
  it('without overrides: one entry per edit, reaching every affected operation; the missing major bump is the verdict, apart', () => {
    const r = runDiff({ label: 'base', model: base }, { label: 'head', model: head });
    const optional = r.changes.filter((c) => c.id === 'response-field-became-optional');
    expect(optional).toHaveLength(1);
    expect(optional[0]!.places.map((p) => p.operation)).toEqual(expect.arrayContaining(['createCard', 'topupCard', 'freezeCard', 'unfreezeCard', 'closeCard', 'getOrder', 'listOrders']));
    expect(r.summary.breaking).toBe(2);
    expect(r.changes.map((c) => c.id)).not.toContain('version-major-bump-missing');
    expect(r.verdict?.id).toBe('version-major-bump-missing');
    expect(r.summary.failing).toBe(r.summary.breaking + 1);
  });

  it('one pointer-scoped line acknowledges the change everywhere it shows; the suggested line is that line', () => {
    const r0 = runDiff({ label: 'base', model: base }, { label: 'head', model: head });
    const line = acknowledgmentLine(r0.changes.find((c) => c.id === 'response-field-became-optional')!);
    expect(line).toBe("  - { id: response-field-became-optional, at: '#/components/schemas/Order/properties/related_card_uuid', level: warning, reason: '<why this is acceptable>' }");
    const r = diff([
      { id: 'response-field-became-optional', at: '#/components/schemas/Order/properties/related_card_uuid', level: 'warning', reason: 'D8' },
      { id: 'webhook-payload-field-removed', at: 'order.completed', level: 'ignore', reason: 'never sent' },
    ]);
    expect(r.summary).toMatchObject({ breaking: 0, failing: 0, ignored: 1 });
    expect(r.changes.every((c) => c.level === 'warning' && c.defaultLevel === 'breaking' && c.override?.reason === 'D8')).toBe(true);
    expect(r.changes.map((c) => c.id)).not.toContain('version-major-bump-missing');
    expect(r.unusedOverrides).toEqual([]);
  });

  it('scopes: operation id, METHOD /path, field, pointer prefix; an unscoped entry covers every location; first match wins', () => {
    const byOp = diff([{ id: 'response-field-became-optional', at: 'createCard', level: 'info', reason: 'x' }]);
    expect(byOp.changes.filter((c) => c.id === 'response-field-became-optional' && c.level === 'info').map((c) => c.location.operation)).toEqual(['createCard']);
    const byEndpoint = diff([{ id: 'response-field-became-optional', at: 'GET /orders', level: 'info', reason: 'x' }]);
    expect(byEndpoint.changes.filter((c) => c.level === 'info').map((c) => c.location.operation)).toEqual(['listOrders']);
    const byField = diff([{ id: 'webhook-payload-field-removed', at: 'data.card_uuid', level: 'info', reason: 'x' }]);
    expect(byField.changes.find((c) => c.id === 'webhook-payload-field-removed')?.level).toBe('info');
    const byPrefix = diff([{ id: 'response-field-became-optional', at: '#/components/schemas/Order', level: 'info', reason: 'x' }]);
    expect(byPrefix.changes.filter((c) => c.id === 'response-field-became-optional').every((c) => c.level === 'info')).toBe(true);
    const notAPrefix = diff([{ id: 'response-field-became-optional', at: '#/components/schemas/Ord', level: 'info', reason: 'x' }]);
    expect(notAPrefix.unusedOverrides).toEqual([0]);
    const first = diff([
      { id: 'webhook-payload-field-removed', level: 'warning', reason: 'first' },
      { id: 'webhook-payload-field-removed', level: 'ignore', reason: 'second' },
    ]);
    expect(first.changes.find((c) => c.id === 'webhook-payload-field-removed')?.override?.reason).toBe('first');
    expect(first.unusedOverrides).toEqual([1]);
  });

  it('the version rule is itself overridable', () => {
    const r = diff([{ id: 'version-major-bump-missing', level: 'warning', reason: 'pre-release' }]);
    expect(r.verdict?.level).toBe('warning');
    expect(r.summary.failing).toBe(r.summary.breaking);
  });

  it('rejects entries without a reason, with an unknown id, level or key, each with its pointer', () => {
    const bad = () =>
      parseOverrides(
        {
          overrides: [
            { id: 'response-field-removed', level: 'warning' },
            { id: 'nope', level: 'info', reason: 'x' },
            { id: 'response-field-removed', level: 'fatal', reason: 'x' },
            { id: 'response-field-removed', level: 'info', reason: 'x', scope: 'y' },
          ],
        },
        'o.yaml',
      );
    expect(bad).toThrow(SpecErrors);
    try {
      bad();
    } catch (error) {
      const pointers = (error as SpecErrors).errors.map((e) => e.pointer);
      expect(pointers).toEqual(['#/overrides/0/reason', '#/overrides/1/id', '#/overrides/2/level', '#/overrides/3']);
    }
    expect(() => parseOverrides({ overrides: {} }, 'o.yaml')).toThrow(/must be a list/);
    expect(parseOverrides(null, 'o.yaml').entries).toEqual([]);
  });
});

describe('each change once: one edit seen from several operations is one entry in every format', () => {
  it('one entry listing every place and every touched method, in text, Markdown and JSON', async () => {
    const { formatResult } = await import('../../generators/diff/index.js');
    const r = runDiff({ label: 'base', model: base }, { label: 'head', model: head });
    const text = formatResult(r, 'text');
    const entries = text.split('\n').filter((l) => l.startsWith('BREAKING response-field-became-optional'));
    expect(entries).toEqual(['BREAKING response-field-became-optional  Order.related_card_uuid in 7 places']);
    expect(text).toContain('  in closeCard (POST /cards/{uuid}/close), createCard (POST /cards), freezeCard');
    expect(text).toMatch(/touches client\.cards\.close\(\), client\.cards\.create\(\), .*type Order/);
    const md = formatResult(r, 'markdown');
    expect(md.split('\n').filter((l) => l.includes('`response-field-became-optional`'))).toHaveLength(1);
    const json = JSON.parse(formatResult(r, 'json'));
    const entry = json.changes.filter((c: any) => c.id === 'response-field-became-optional');
    expect(entry).toHaveLength(1);
    expect(entry[0].places).toHaveLength(7);
    expect(json.verdict.id).toBe('version-major-bump-missing');
  });
});

describe('policy', () => {
  const renamed = () => variant(spec, (d) => {
    writesAnswerOrder(d);
    d.paths['/wallet'].get.operationId = 'readWallet';
  });
  it('a policy rule sets the level of every change of its check; flags win over the file', async () => {
    const { parsePolicyFlags } = await import('../../generators/diff/index.js');
    const byDefault = runDiff({ label: 'base', model: base }, { label: 'head', model: renamed() });
    expect(byDefault.changes.find((c) => c.id === 'operation-id-changed')?.level).toBe('warning');
    const file = parseOverrides({ policy: { 'operation-id-changed': 'breaking' } }, 'overrides.yaml');
    const strict = runDiff({ label: 'base', model: base }, { label: 'head', model: renamed() }, { overrides: file });
    expect(strict.changes.find((c) => c.id === 'operation-id-changed')).toMatchObject({ level: 'breaking', defaultLevel: 'breaking' });
    expect(strict.policy).toEqual({ 'operation-id-changed': 'breaking' });
    const flagged = runDiff({ label: 'base', model: base }, { label: 'head', model: renamed() }, { overrides: file, policy: parsePolicyFlags(['operation-id-changed=info']) });
    expect(flagged.changes.find((c) => c.id === 'operation-id-changed')?.level).toBe('info');
  });
  it('refuses a rule that is not policy, and a level that is not one, with a pointer or the flag', async () => {
    const { parsePolicyFlags } = await import('../../generators/diff/index.js');
    try {
      parseOverrides({ policy: { 'response-field-removed': 'info', 'operation-id-changed': 'ignore' } }, 'o.yaml');
      expect.unreachable();
    } catch (error) {
      expect((error as SpecErrors).errors.map((e) => e.pointer)).toEqual(['#/policy/response-field-removed', '#/policy/operation-id-changed']);
    }
    expect(() => parsePolicyFlags(['operation-id-changed'])).toThrow(/expected <rule>=<level>/);
    expect(() => parsePolicyFlags(['response-field-removed=info'])).toThrow(/not a policy rule/);
  });
});
