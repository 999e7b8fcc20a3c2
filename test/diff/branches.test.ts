/**
 * Issue 27: `oneOf`/`anyOf` branches are matched by content (discriminator value, then structure), never by
 * position; and a schema shared through many paths is compared once, its changes reported once per operation or
 * event (not once per path).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { diffModels } from '../../generators/diff/index.js';
import type { LoadedSpec } from '../../generators/model/index.js';
import { realSpec, schemas as S, variant } from './helpers.js';

let spec: LoadedSpec;
beforeAll(async () => {
  spec = await realSpec();
});

const branch = (channel: string) => ({ type: 'object', required: ['channel', 'name'], properties: { channel: { const: channel }, name: { type: 'string' } } });
/** `CardTransaction.merchant` as a oneOf of named branches, in the given order. */
function merchant(names: string[], discriminator = false) {
  return (d: any) => {
    S(d).Merchant = { allOf: [...S(d).Merchant.allOf, { type: 'object', required: ['channel'], properties: { channel: { const: 'store' } } }] };
    S(d).OnlineMerchant = branch('online');
    S(d).PhoneMerchant = branch('phone');
    S(d).MailMerchant = branch('mail');
    S(d).CardTransaction.properties.merchant = {
      oneOf: names.map((n) => ({ $ref: `#/components/schemas/${n}` })),
      ...(discriminator ? { discriminator: { propertyName: 'channel', mapping: Object.fromEntries(names.map((n) => [n === 'Merchant' ? 'store' : n.replace('Merchant', '').toLowerCase(), `#/components/schemas/${n}`])) } } : {}),
    };
  };
}

describe('oneOf branches matched by content', () => {
  it('reordering branches reports nothing (with and without a discriminator)', () => {
    for (const disc of [false, true]) {
      const base = variant(spec, merchant(['Merchant', 'OnlineMerchant', 'PhoneMerchant'], disc));
      const head = variant(spec, merchant(['PhoneMerchant', 'Merchant', 'OnlineMerchant'], disc));
      expect(diffModels(base, head)).toEqual([]);
    }
  });

  it('reordering inline branches told apart by a const tag or by type reports nothing', () => {
    const inline = (order: number[]) => (d: any) => {
      const all = [branch('online'), branch('phone'), { type: 'string' }, { type: 'integer' }];
      S(d).CardTransaction.properties.merchant = { anyOf: order.map((i) => all[i]) };
    };
    expect(diffModels(variant(spec, inline([0, 1, 2, 3])), variant(spec, inline([3, 1, 2, 0])))).toEqual([]);
  });

  it('an added response (and webhook payload) branch is reported, breaking, with the new branch named', () => {
    const changes = diffModels(variant(spec, merchant(['Merchant', 'OnlineMerchant'])), variant(spec, merchant(['OnlineMerchant', 'MailMerchant', 'Merchant'])));
    const ids = new Set(changes.map((c) => c.id));
    expect([...ids].sort()).toEqual(['response-variant-added', 'webhook-payload-variant-added']);
    expect(changes.every((c) => c.level === 'breaking' && c.message.includes('MailMerchant'))).toBe(true);
    expect(changes.some((c) => c.location.event === 'card.transaction.authorized' && c.location.field === 'data.transaction.merchant')).toBe(true);
    expect(changes.find((c) => c.location.operation === 'listCardTransactions')?.location.head).toBe('#/components/schemas/MailMerchant');
  });

  it('a changed branch is compared with its match, not with the branch at its old position', () => {
    const base = variant(spec, merchant(['Merchant', 'OnlineMerchant', 'PhoneMerchant'], true));
    const head = variant(spec, (d) => {
      merchant(['PhoneMerchant', 'OnlineMerchant', 'Merchant'], true)(d);
      delete S(d).OnlineMerchant.properties.name;
      S(d).OnlineMerchant.required = ['channel'];
    });
    const fields = diffModels(base, head).map((c) => `${c.id} ${c.location.field}`);
    expect(new Set(fields)).toEqual(new Set(['response-field-removed data[].merchant.name', 'response-field-removed data[].lines[].merchant.name', 'webhook-payload-field-removed data.transaction.merchant.name']));
  });
});

describe('cost that grows with the document', () => {
  /** A chain of `levels` schemas where each level reaches the next through two properties: 2^levels paths. */
  function chain(levels: number, extra: boolean) {
    return (d: any) => {
      for (let i = 0; i < levels; i += 1) {
        const next = i + 1 < levels ? { $ref: `#/components/schemas/Level${i + 1}` } : { type: 'string' };
        S(d)[`Level${i}`] = { type: 'object', properties: { left: next, right: next } };
      }
      if (extra) S(d)[`Level${levels - 1}`].properties.note = { type: 'string' };
      S(d).Card.properties.tree = { $ref: '#/components/schemas/Level0' };
    };
  }

  it('one new field at the bottom of 16 levels of two references is one change per operation or event', () => {
    const changes = diffModels(variant(spec, chain(16, false)), variant(spec, chain(16, true)));
    const places = changes.map((c) => c.location.operation ?? c.location.event);
    expect(changes.every((c) => c.id === 'response-field-added' || c.id === 'webhook-payload-field-added')).toBe(true);
    expect(new Set(places).size).toBe(places.length);
    expect(changes.length).toBeLessThan(40);
    expect(changes.find((c) => c.location.operation === 'getCard')?.location.field).toBe(`data.tree${'.left'.repeat(15)}.note`);
  });
});
