/**
 * Properties of the diff over arbitrary versions of the real spec: a spec diffed with itself is empty; a spec
 * diffed with a reformatted copy of itself (keys shuffled, lists whose order means nothing shuffled, non-schema
 * components inlined or renamed, nested schema `$ref`s inlined, written as JSON instead of YAML and loaded
 * through the loader) is empty; and the output does not depend on key order or on the run.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffModels, formatResult, loadSide, runDiff } from '../../generators/diff/index.js';
import type { ApiModel, LoadedSpec } from '../../generators/model/index.js';
import { tempDir } from '../helpers/spec.js';
import { realSpec, schemas, variant } from './helpers.js';

/** Edits that make other, valid versions of the spec (so the properties hold for more than one document). */
const EDITS: Array<(d: any) => void> = [
  (d) => delete schemas(d).Order.properties.related_card_id,
  (d) => (schemas(d).Card.properties.nickname = { type: 'string', maxLength: 40 }),
  (d) => (schemas(d).CardholderType.enum = ['user']),
  (d) => (d.components.parameters.PerPage.schema.default = 20),
  (d) => delete d.webhooks['card.unfrozen'],
  (d) => (schemas(d).OrderCompletedData.required = ['order_uuid']),
  (d) => (d.paths['/card-products'].get.security = [{ bearerAuth: ['cards.read'] }]),
  (d) => (schemas(d).EventEnvelope.properties.event_id.type = ['integer', 'string']),
];

/** A small deterministic PRNG so a shrunk counter-example replays exactly. */
function prng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

function shuffle<T>(items: T[], rnd: () => number): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i -= 1) {
    const j = Math.floor(rnd() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

const UNORDERED = new Set(['enum', 'required', 'parameters', 'tags', 'security']);

/** Every object's keys in a random order; lists whose order means nothing shuffled too. */
function shuffleKeys(value: unknown, rnd: () => number, key = ''): unknown {
  if (Array.isArray(value)) {
    const items = value.map((v) => shuffleKeys(v, rnd));
    return UNORDERED.has(key) ? shuffle(items, rnd) : items;
  }
  if (value && typeof value === 'object') {
    return Object.fromEntries(shuffle(Object.keys(value), rnd).map((k) => [k, shuffleKeys((value as any)[k], rnd, k)]));
  }
  return value;
}

function mapRefs(value: unknown, fn: (ref: string, node: any) => unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => mapRefs(v, fn));
  if (value && typeof value === 'object') {
    const node = value as any;
    if (typeof node.$ref === 'string') {
      const replaced = fn(node.$ref, node);
      if (replaced !== node) return replaced;
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, mapRefs(v, fn)]));
  }
  return value;
}

function target(doc: any, ref: string): any {
  return ref.slice(2).split('/').reduce((n: any, t) => n?.[t.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
}

/** Replaces `$ref`s to parameters, responses, request bodies, headers and examples with their content. */
function inlineComponents(doc: any): any {
  const kinds = ['parameters', 'responses', 'requestBodies', 'headers', 'examples'];
  const out = structuredClone(doc);
  const inline = (v: unknown): unknown =>
    mapRefs(v, (ref, node) => (kinds.some((k) => ref.startsWith(`#/components/${k}/`)) ? inline(structuredClone(target(doc, ref))) : node));
  out.paths = inline(out.paths);
  out.webhooks = inline(out.webhooks);
  for (const k of kinds) delete out.components[k];
  return out;
}

/** Moves every non-schema component to another name (`Forbidden` → `ForbiddenMoved`), refs updated. */
function moveComponents(doc: any): any {
  const kinds = ['parameters', 'responses', 'requestBodies', 'headers', 'examples'];
  const out: any = mapRefs(doc, (ref, node) => {
    const kind = kinds.find((k) => ref.startsWith(`#/components/${k}/`));
    return kind ? { ...node, $ref: `${ref}Moved` } : node;
  });
  for (const k of kinds) out.components[k] = Object.fromEntries(Object.entries(out.components[k] ?? {}).map(([name, v]) => [`${name}Moved`, v]));
  return out;
}

/** Inlines `$ref`s found inside component schemas' properties (the named schemas themselves stay exported). */
function inlineNestedSchemas(doc: any): any {
  const out = structuredClone(doc);
  for (const schema of Object.values<any>(out.components.schemas)) {
    if (!schema.properties) continue;
    for (const [name, prop] of Object.entries<any>(schema.properties)) {
      if (typeof prop.$ref === 'string') {
        const { $ref, ...rest } = prop;
        schema.properties[name] = { ...structuredClone(target(doc, $ref)), ...rest };
      }
    }
  }
  return out;
}

const tmp = tempDir('diff-props');
afterAll(tmp.cleanup);
let spec: LoadedSpec;
let real: ApiModel;
beforeAll(async () => {
  spec = await realSpec();
  real = variant(spec);
});

const editsArb = fc.subarray(EDITS.map((_, i) => i));
const reformatArb = fc.record({ seed: fc.integer({ min: 1, max: 2 ** 31 - 1 }), inline: fc.boolean(), move: fc.boolean(), nested: fc.boolean() });

function reformat(doc: any, r: { seed: number; inline: boolean; move: boolean; nested: boolean }): any {
  let out = structuredClone(doc);
  if (r.inline) out = inlineComponents(out);
  else if (r.move) out = moveComponents(out);
  if (r.nested) out = inlineNestedSchemas(out);
  return shuffleKeys(out, prng(r.seed));
}

describe('diff properties', () => {
  it('the reformatting really changes the document (so the next properties are not vacuous)', () => {
    const doc = spec.document as any;
    const inlined = reformat(doc, { seed: 7, inline: true, move: false, nested: true });
    expect(inlined.components.responses).toBeUndefined();
    expect(inlined.paths['/cards'].post.responses['401'].$ref).toBeUndefined();
    expect(inlined.paths['/cards'].post.responses['401'].description).toContain('token');
    expect(inlined.components.schemas.Order.properties.type.$ref).toBeUndefined();
    const moved = reformat(doc, { seed: 7, inline: false, move: true, nested: false });
    expect(Object.keys(moved.components.responses)).toContain('ForbiddenMoved');
    expect(Object.keys(reformat(doc, { seed: 3, inline: false, move: false, nested: false }))).not.toEqual(Object.keys(doc));
    // and a real edit on top of a reformatting is still seen
    const edited = variant(spec, (d) => {
      const re = reformat(d, { seed: 5, inline: true, move: false, nested: true });
      delete re.components.schemas.OrderCompletedData.properties.card_uuid;
      for (const k of Object.keys(d)) delete d[k];
      Object.assign(d, re);
    });
    expect(diffModels(real, edited).map((c) => c.id)).toContain('webhook-payload-field-removed');
  });

  it('diff(a, a) is empty for any version a', () => {
    fc.assert(
      fc.property(editsArb, (edits) => {
        const a = variant(spec, (d) => edits.forEach((i) => EDITS[i]!(d)));
        expect(diffModels(a, a)).toEqual([]);
        expect(diffModels(a, variant(spec, (d) => edits.forEach((i) => EDITS[i]!(d))))).toEqual([]);
      }),
      { numRuns: 25 },
    );
  });

  it('diff(a, reformat(a)) is empty: key order, inlined or moved components, inlined nested schema refs', () => {
    fc.assert(
      fc.property(editsArb, reformatArb, (edits, r) => {
        const edit = (d: any) => edits.forEach((i) => EDITS[i]!(d));
        const a = variant(spec, edit);
        const b = variant(spec, (d) => {
          edit(d);
          const re = reformat(d, r);
          for (const k of Object.keys(d)) delete d[k];
          Object.assign(d, re);
        });
        const changes = diffModels(a, b);
        expect(changes.map((c) => `${c.id} ${c.location.operation ?? c.location.event ?? ''} ${c.location.field ?? ''}`)).toEqual([]);
      }),
      { numRuns: 30 },
    );
  });

  it('diff(a, reformat(a)) is empty through the loader, YAML against JSON', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(reformatArb, fc.boolean(), async (r, json) => {
        n += 1;
        const doc = reformat(structuredClone(spec.document), r);
        const file = path.join(tmp.dir, `reformatted-${n}.${json ? 'json' : 'yaml'}`);
        writeFileSync(file, json ? JSON.stringify(doc, null, 1) : stringify(doc, { lineWidth: 0 }));
        const side = await loadSide(file);
        expect(diffModels(real, side.model)).toEqual([]);
      }),
      { numRuns: 4 },
    );
  });

  it('output is deterministic: the same pair twice, or with the head\'s keys shuffled, prints the same', () => {
    fc.assert(
      fc.property(editsArb, fc.integer({ min: 1, max: 2 ** 31 - 1 }), (edits, seed) => {
        const edit = (d: any) => edits.forEach((i) => EDITS[i]!(d));
        const head = variant(spec, edit);
        const shuffled = variant(spec, (d) => {
          edit(d);
          const re = shuffleKeys(d, prng(seed)) as any;
          for (const k of Object.keys(d)) delete d[k];
          Object.assign(d, re);
        });
        const out = (m: ApiModel) => formatResult(runDiff({ label: 'base', model: real }, { label: 'head', model: m }), 'json');
        const first = out(head);
        expect(out(head)).toBe(first);
        expect(out(shuffled)).toBe(first);
      }),
      { numRuns: 20 },
    );
  });
});
