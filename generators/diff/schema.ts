/**
 * Structural comparison of JSON Schemas with a direction. `$ref`s are followed on each side in its own document,
 * `allOf` is merged, `anyOf`/`oneOf` with a `null` branch (or 3.0's `nullable`) is read as nullable, so a schema
 * written inline or behind a `$ref`, or moved to another component name, compares equal to itself.
 *
 * Cost grows with the document, not with the paths through it: every schema is flattened once per document
 * (`Norms`), every pair of schemas is compared once per direction (`Comparer`, keyed by both sides' pointers), and
 * a pair's result is its own findings plus the child pairs it leads to. A root (a request body, a response, a
 * payload) then reaches each pair once, by breadth-first search, so a shared or circular schema is never expanded
 * twice and a change is reported once per operation or event, at the shortest field path that reaches it.
 *
 * `oneOf`/`anyOf` branches are matched by content, never by position: the discriminator value first, then
 * structure (the component name, `const`/single-value `enum` tags, required keys, property names, types).
 */
import { canonical, isObject, resolveRef, token, type JsonObject, type Sub } from './document.js';

export type { Sub };
/** Who writes the value: the integrator (`request`) or the service (`response`; a webhook payload too). */
export type Direction = 'request' | 'response';
export type Polarity = 'request' | 'response' | 'webhook';

const ANNOTATIONS = new Set(['$ref', 'description', 'summary', 'title', 'examples', 'example', 'deprecated', '$comment', 'externalDocs', 'xml']);
const MAX_KEYS = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems', 'maxProperties'] as const;
const MIN_KEYS = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems', 'minProperties'] as const;
type BoundKey = (typeof MAX_KEYS)[number] | (typeof MIN_KEYS)[number] | 'multipleOf';

/** A schema flattened for comparison. `types` null means any type. */
export interface Norm {
  /** Identity of what was flattened (pointers of the parts, `$ref`s followed): the memo key. */
  key: string;
  at: string;
  /** The component schema this is nearest to (through `allOf` too): what generated code names it. */
  typeName?: string;
  /** The component schema this is, by `$ref` (never by merging): what a rename is judged on. */
  ref?: string;
  types: Set<string> | null;
  nullable: boolean;
  format?: string;
  pattern?: string;
  enum?: Set<string>;
  bounds: Partial<Record<BoundKey, number>>;
  uniqueItems: boolean;
  readOnly: boolean;
  writeOnly: boolean;
  properties: Map<string, Sub[]>;
  required: Set<string>;
  additional?: false | Sub[];
  items?: Sub[];
  variants?: Sub[];
  combinator?: 'oneOf' | 'anyOf';
  discriminator?: { property: string; mapping: Map<string, string> };
  /**
   * Sub-schemas that constrain the value the same way round as the schema itself (`then`, `else`, `contains`,
   * `prefixItems/0`, `patternProperties/^x-`, `dependentSchemas/name`, ...): tightening one tightens the whole.
   */
  subs: Map<string, Sub[]>;
  /** `not`, as canonical text: it constrains the other way round, so it is compared as a whole. */
  not?: string;
  /** `default`, as canonical text: what the service assumes when a caller omits the value. */
  default?: string;
}

/** Keywords whose sub-schema constrains the value with the schema's own polarity. */
const SAME_WAY = ['then', 'else', 'contains', 'propertyNames', 'unevaluatedProperties', 'unevaluatedItems', 'additionalItems', 'contentSchema'] as const;
const SAME_WAY_MAPS = ['patternProperties', 'dependentSchemas'] as const;

function empty(key: string, at: string): Norm {
  return { key, at, types: null, nullable: true, bounds: {}, uniqueItems: false, readOnly: false, writeOnly: false, properties: new Map(), required: new Set(), subs: new Map() };
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Merges `b` into `a` as `allOf` does (both must hold). */
function intersect(a: Norm, b: Norm): Norm {
  const out: Norm = { ...a, bounds: { ...a.bounds }, properties: new Map(a.properties), required: new Set([...a.required, ...b.required]), subs: new Map(a.subs) };
  for (const [k, subs] of b.subs) out.subs.set(k, [...(out.subs.get(k) ?? []), ...subs]);
  out.not = a.not !== undefined && b.not !== undefined && a.not !== b.not ? `${a.not}&${b.not}` : (a.not ?? b.not);
  out.default = a.default ?? b.default;
  if (a.types === null) out.types = b.types;
  else if (b.types !== null) out.types = new Set([...a.types].filter((t) => b.types!.has(t) || (t === 'integer' && b.types!.has('number'))));
  out.nullable = a.nullable && b.nullable;
  out.format = a.format ?? b.format;
  out.pattern = a.pattern ?? b.pattern;
  if (a.enum && b.enum) out.enum = new Set([...a.enum].filter((v) => b.enum!.has(v)));
  else out.enum = a.enum ?? b.enum;
  for (const k of MAX_KEYS) if (b.bounds[k] !== undefined) out.bounds[k] = Math.min(a.bounds[k] ?? Infinity, b.bounds[k]!);
  for (const k of MIN_KEYS) if (b.bounds[k] !== undefined) out.bounds[k] = Math.max(a.bounds[k] ?? -Infinity, b.bounds[k]!);
  if (b.bounds.multipleOf !== undefined) out.bounds.multipleOf = b.bounds.multipleOf;
  out.uniqueItems = a.uniqueItems || b.uniqueItems;
  out.readOnly = a.readOnly || b.readOnly;
  out.writeOnly = a.writeOnly || b.writeOnly;
  for (const [name, subs] of b.properties) out.properties.set(name, [...(out.properties.get(name) ?? []), ...subs]);
  out.additional = a.additional === false || b.additional === false ? false : a.additional && b.additional ? [...a.additional, ...b.additional] : (a.additional ?? b.additional);
  out.items = a.items && b.items ? [...a.items, ...b.items] : (a.items ?? b.items);
  out.variants = a.variants ?? b.variants;
  out.combinator = a.combinator ?? b.combinator;
  out.discriminator = a.discriminator ?? b.discriminator;
  out.typeName = a.typeName ?? b.typeName;
  // Point at the named part (`allOf: [{ $ref: Envelope }, { properties: { data: { $ref: Data } } }]` → Data).
  if (!a.typeName && b.typeName) out.at = b.at;
  return out;
}

/** The pointer a schema is identified by: its `$ref` target when it is only a `$ref`, else where it is written. */
function identity(doc: JsonObject, sub: Sub): string {
  const n = sub.node;
  if (isObject(n) && typeof n.$ref === 'string' && Object.keys(n).every((k) => ANNOTATIONS.has(k))) return resolveRef(doc, n, sub.at).at;
  return sub.at;
}

/** Flattened schemas of one document, each computed once. */
export class Norms {
  readonly #cache = new Map<string, Norm>();
  readonly #open = new Set<string>();
  constructor(readonly doc: JsonObject) {}

  key(subs: Sub[]): string {
    return subs.map((s) => identity(this.doc, s)).join('&');
  }

  /** Flattens a schema given as a list of parts that all hold (a property defined in several `allOf` parts). */
  of(subs: Sub[]): Norm {
    const key = this.key(subs);
    const cached = this.#cache.get(key);
    if (cached) return cached;
    let n: Norm;
    if (subs.length === 0) n = empty(key, '#');
    else if (subs.length === 1) n = this.one(subs[0]!.node, subs[0]!.at);
    else {
      const parts = subs.map((s) => this.one(s.node, s.at));
      n = parts.reduce(intersect);
      // A property declared in several `allOf` parts is the component one of them names.
      const refs = [...new Set(parts.map((p) => p.ref).filter((r) => r !== undefined))];
      n = refs.length === 1 ? { ...n, ref: refs[0]! } : { ...n, ref: undefined };
    }
    n = { ...n, key };
    this.#cache.set(key, n);
    return n;
  }

  one(raw: unknown, rawAt: string): Norm {
    const key = identity(this.doc, { node: raw, at: rawAt });
    const cached = this.#cache.get(key);
    if (cached) return cached;
    // A schema that contains itself through `allOf` (or a `$ref` loop): read the inner occurrence as unconstrained.
    if (this.#open.has(key) || this.#open.size > 256) return empty(key, rawAt);
    this.#open.add(key);
    try {
      const n = this.#flatten(raw, rawAt, key);
      this.#cache.set(key, n);
      return n;
    } finally {
      this.#open.delete(key);
    }
  }

  #flatten(raw: unknown, rawAt: string, key: string): Norm {
    // `$ref` with sibling keywords (3.1): both hold.
    if (isObject(raw) && typeof raw.$ref === 'string' && Object.keys(raw).some((k) => !ANNOTATIONS.has(k) && k !== 'readOnly' && k !== 'writeOnly')) {
      const { $ref, ...rest } = raw;
      return { ...intersect(this.one({ $ref }, rawAt), this.#flatten(rest, rawAt, `${key}+`)), key };
    }
    const r = resolveRef(this.doc, raw, rawAt);
    if (r.node === false || r.node === undefined && isObject(raw) && typeof raw.$ref === 'string') return { ...empty(key, r.at), types: new Set(), nullable: false };
    if (!isObject(r.node)) return empty(key, r.at);
    const s = r.node;
    let n: Norm = empty(key, r.at);
    if (r.name) {
      n.typeName = r.name;
      n.ref = r.name;
    }
    const declared = Array.isArray(s.type) ? s.type.map(String) : typeof s.type === 'string' ? [s.type] : null;
    const values = Array.isArray(s.enum) ? s.enum : s.const !== undefined ? [s.const] : null;
    if (declared) {
      n.nullable = declared.includes('null') || s.nullable === true;
      n.types = new Set(declared.filter((t) => t !== 'null'));
    } else if (values) {
      n.nullable = values.includes(null);
      n.types = new Set(values.filter((v) => v !== null).map(jsonType));
    } else if (isObject(s.properties) || Array.isArray(s.required) || s.additionalProperties !== undefined) {
      n.types = new Set(['object']);
      n.nullable = s.nullable === true;
    } else if (s.items !== undefined) {
      n.types = new Set(['array']);
      n.nullable = s.nullable === true;
    }
    if (values) {
      n.enum = new Set(values.filter((v) => v !== null).map((v) => canonical(v)));
      if (!values.includes(null) && s.nullable !== true) n.nullable = false;
    }
    if (typeof s.format === 'string') n.format = s.format;
    if (typeof s.pattern === 'string') n.pattern = s.pattern;
    for (const k of [...MAX_KEYS, ...MIN_KEYS, 'multipleOf'] as const) if (typeof s[k] === 'number') n.bounds[k] = s[k] as number;
    // 3.0: `exclusiveMaximum: true` makes `maximum` exclusive.
    if (s.exclusiveMaximum === true && typeof s.maximum === 'number') {
      n.bounds.exclusiveMaximum = s.maximum;
      delete n.bounds.maximum;
    }
    if (s.exclusiveMinimum === true && typeof s.minimum === 'number') {
      n.bounds.exclusiveMinimum = s.minimum;
      delete n.bounds.minimum;
    }
    n.uniqueItems = s.uniqueItems === true;
    n.readOnly = s.readOnly === true || (isObject(raw) && raw.readOnly === true);
    n.writeOnly = s.writeOnly === true || (isObject(raw) && raw.writeOnly === true);
    if (isObject(s.properties)) for (const [name, sub] of Object.entries(s.properties)) n.properties.set(name, [{ node: sub, at: `${r.at}/properties/${token(name)}` }]);
    if (Array.isArray(s.required)) n.required = new Set(s.required.map(String));
    if (s.additionalProperties === false) n.additional = false;
    else if (isObject(s.additionalProperties)) n.additional = [{ node: s.additionalProperties, at: `${r.at}/additionalProperties` }];
    if (s.items !== undefined && typeof s.items !== 'boolean' && !Array.isArray(s.items)) n.items = [{ node: s.items, at: `${r.at}/items` }];
    for (const kw of SAME_WAY) if (isObject(s[kw])) n.subs.set(kw, [{ node: s[kw], at: `${r.at}/${kw}` }]);
    if (Array.isArray(s.prefixItems)) s.prefixItems.forEach((item, i) => n.subs.set(`prefixItems/${i}`, [{ node: item, at: `${r.at}/prefixItems/${i}` }]));
    for (const kw of SAME_WAY_MAPS) {
      const map = s[kw];
      if (isObject(map)) for (const [k, sub] of Object.entries(map)) if (isObject(sub)) n.subs.set(`${kw}/${k}`, [{ node: sub, at: `${r.at}/${kw}/${token(k)}` }]);
    }
    // A `not` behind a `$ref` is compared by what the reference holds, so a renamed component is not a change.
    if (s.not !== undefined) n.not = canonical(resolveRef(this.doc, s.not, `${r.at}/not`).node);
    if (s.default !== undefined) n.default = canonical(s.default);
    if (isObject(s.discriminator) && typeof s.discriminator.propertyName === 'string') {
      const mapping = new Map<string, string>();
      if (isObject(s.discriminator.mapping)) for (const [value, target] of Object.entries(s.discriminator.mapping)) if (typeof target === 'string') mapping.set(value, target.startsWith('#') ? target : `#/components/schemas/${token(target)}`);
      n.discriminator = { property: s.discriminator.propertyName, mapping };
    }
    if (Array.isArray(s.allOf)) {
      s.allOf.forEach((part, i) => {
        n = intersect(n, this.one(part, `${r.at}/allOf/${i}`));
      });
    }
    for (const kind of ['anyOf', 'oneOf'] as const) {
      if (!Array.isArray(s[kind])) continue;
      const branches = (s[kind] as unknown[]).map((part, i) => ({ sub: { node: part, at: `${r.at}/${kind}/${i}` }, norm: this.one(part, `${r.at}/${kind}/${i}`) }));
      const isNull = (b: Norm) => b.nullable && b.types !== null && b.types.size === 0;
      const real = branches.filter((b) => !isNull(b.norm));
      const hasNull = real.length < branches.length || real.some((b) => b.norm.nullable);
      if (real.length === 1) {
        const one = real[0]!.norm;
        const named = !n.typeName && one.typeName;
        n = intersect(n, { ...one, nullable: true });
        n.nullable = hasNull && (declared === null || declared.includes('null') || s.nullable === true);
        if (named) {
          n.typeName = one.typeName;
          n.at = one.at;
          if (one.ref) n.ref = one.ref;
        }
      } else if (real.length > 1) {
        const types = real.every((b) => b.norm.types !== null) ? new Set(real.flatMap((b) => [...b.norm.types!])) : null;
        n = intersect(n, { ...empty(key, r.at), types, nullable: true });
        n.nullable = hasNull || s.nullable === true;
        n.variants = real.map((b) => b.sub);
        n.combinator = kind;
      }
    }
    return n;
  }
}

/** Whether type set `a` accepts every value of type `t`. */
function accepts(a: Set<string> | null, t: string): boolean {
  return a === null || a.has(t) || (t === 'integer' && a.has('number'));
}

function typeText(n: Norm): string {
  const t = n.types === null ? 'any' : [...n.types].sort().join(' | ') || 'never';
  return n.nullable && n.types !== null ? `${t} | null` : t;
}

/** Patterns that accept every string (JSON Schema patterns are not anchored). */
const ANYTHING = new Set(['', '.*', '^.*$', '^.*', '.*$', '[\\s\\S]*', '^[\\s\\S]*$', '(.*)', '^(.*)$']);
/** Patterns that accept every non-empty string. */
const NON_EMPTY = new Set(['.+', '^.+$', '^.+', '.', '[\\s\\S]+', '^[\\s\\S]+$', '(.+)', '^(.+)$']);

const QUANT = /\{(\d+)(,(\d*))?\}/g;
/**
 * True when `head` accepts every string `base` accepts, provably: `head` accepts anything (`''`, `.*`), or accepts
 * every non-empty string (`.+`) and `base` needs at least one character, or `head` is `base` with only its `{m,n}`
 * repetition bounds widened.
 */
export function patternWidened(base: string, head: string): boolean {
  if (ANYTHING.has(head)) return true;
  if (NON_EMPTY.has(head)) return !ANYTHING.has(base) && !/^\^?(\(.*\)|\[.*\]|.)\*\$?$/.test(base) && base !== '^$';
  if (base.replace(QUANT, '{}') !== head.replace(QUANT, '{}')) return false;
  const b = [...base.matchAll(QUANT)];
  const h = [...head.matchAll(QUANT)];
  return b.every((m, i) => {
    const hm = h[i]!;
    const bounds = (x: RegExpMatchArray) => [Number(x[1]), x[2] === undefined ? Number(x[1]) : x[3] === '' ? Infinity : Number(x[3])] as const;
    const [bmin, bmax] = bounds(m);
    const [hmin, hmax] = bounds(hm);
    return hmin <= bmin && hmax >= bmax;
  });
}

/** A difference found in one pair of schemas, relative to that pair. */
export interface Finding {
  kind: string;
  /** Field path from the pair's root: `''`, `.name`, `[]`, `.*`. */
  rel: string;
  base: string | null;
  head: string | null;
  message: string;
  /** For a type finding: both sides' types (null is any type), so a caller can judge it for a loosely typed media type. */
  types?: { base: string[] | null; head: string[] | null };
}

/** A pair's own findings and the pairs under it (properties, items, matched branches). */
export interface PairResult {
  findings: Finding[];
  children: Array<{ rel: string; b: Norm; h: Norm }>;
  typeName?: string;
}

const SPECIFIC_REQUEST: Record<string, string> = { maxLength: 'max-length-decreased', maximum: 'maximum-decreased', exclusiveMaximum: 'maximum-decreased', minLength: 'min-length-increased', minimum: 'minimum-increased', exclusiveMinimum: 'minimum-increased' };

/** Compares pairs of schemas, each pair once per direction. */
export class Comparer {
  readonly base: Norms;
  readonly head: Norms;
  readonly #memo = new Map<string, PairResult>();
  pairs = 0;
  constructor(baseDoc: JsonObject, headDoc: JsonObject) {
    this.base = new Norms(baseDoc);
    this.head = new Norms(headDoc);
  }

  pair(b: Norm, h: Norm, dir: Direction): PairResult {
    const key = `${dir}\0${b.key}\0${h.key}`;
    let r = this.#memo.get(key);
    if (!r) {
      r = this.#compare(b, h, dir);
      this.#memo.set(key, r);
      this.pairs += 1;
    }
    return r;
  }

  #compare(b: Norm, h: Norm, dir: Direction): PairResult {
    const findings: Finding[] = [];
    const children: PairResult['children'] = [];
    const request = dir === 'request';
    const add = (kind: string, message: string, rel = '', at: { base: string | null; head: string | null } = { base: b.at, head: h.at }) => findings.push({ kind, rel, ...at, message });
    const typeName = h.typeName ?? b.typeName;
    if (b.ref && h.ref && b.ref !== h.ref && !request) add('schema-renamed', `component schema ${b.ref} → ${h.ref}: code that names the old type must be updated`);

    const bv = b.variants;
    const hv = h.variants;
    if (bv || hv) {
      // One side a plain schema: it is one branch of the other side's oneOf/anyOf.
      const bBranches = bv ? bv.map((s) => this.base.of([s])) : [{ ...b, nullable: false }];
      const hBranches = hv ? hv.map((s) => this.head.of([s])) : [{ ...h, nullable: false }];
      this.#variants(b, h, bBranches, hBranches, dir, findings, children);
      if (request && h.combinator === 'oneOf') this.#overlaps(b, h, bBranches, hBranches, add);
      if (b.nullable !== h.nullable) this.#nullability(b, h, request, add);
      if (!bv || !hv) return { findings, children, ...(typeName ? { typeName } : {}) };
    } else {
      this.#types(b, h, request, add, findings);
      this.#nullability(b, h, request, add);
    }
    this.#scalars(b, h, request, add);
    this.#objects(b, h, dir, add, children);
    if (b.items && h.items) children.push({ rel: '[]', b: this.base.of(b.items), h: this.head.of(h.items) });
    this.#subschemas(b, h, request, add, children);
    return { findings, children, ...(typeName ? { typeName } : {}) };
  }

  #types(b: Norm, h: Norm, request: boolean, add: (kind: string, message: string) => void, findings: Finding[]): void {
    const differ = !(b.types === null && h.types === null) && (b.types === null || h.types === null || b.types.size !== h.types.size || [...b.types].some((t) => !h.types!.has(t)));
    if (!differ) return;
    const before = findings.length;
    if (request) {
      const lost = b.types === null ? h.types !== null : [...b.types].some((t) => !accepts(h.types, t));
      add(lost ? 'type-changed' : 'type-widened', `${lost ? 'no longer accepts every type it did' : 'accepts more types'}: ${typeText(b)} → ${typeText(h)}`);
    } else {
      const gained = h.types === null ? b.types !== null : [...h.types].some((t) => !accepts(b.types, t));
      add(gained ? 'type-changed' : 'type-narrowed', `${gained ? 'may now be of another type' : 'has fewer possible types'}: ${typeText(b)} → ${typeText(h)}`);
    }
    const types = { base: b.types && [...b.types].sort(), head: h.types && [...h.types].sort() };
    for (const f of findings.slice(before)) f.types = types;
  }

  #nullability(b: Norm, h: Norm, request: boolean, add: (kind: string, message: string) => void): void {
    if (b.nullable === h.nullable || (b.types === null && h.types === null)) return;
    if (request) add(h.nullable ? 'nullable-added' : 'nullable-removed', h.nullable ? 'now accepts null' : 'no longer accepts null');
    else add(h.nullable ? 'field-became-nullable' : 'nullable-removed', h.nullable ? 'may now be null' : 'is no longer null');
  }

  #scalars(b: Norm, h: Norm, request: boolean, add: (kind: string, message: string) => void): void {
    if (b.format !== h.format) {
      if (h.format === undefined) add('format-removed', `lost \`format: ${b.format}\``);
      else if (request || b.format !== undefined) add('format-changed', `format ${b.format ?? '(none)'} → ${h.format}`);
      else add('constraint-tightened', `gained \`format: ${h.format}\``);
    }
    if (b.pattern !== h.pattern) {
      const relaxed = h.pattern === undefined || (b.pattern !== undefined && patternWidened(b.pattern, h.pattern));
      const text = `pattern ${b.pattern === undefined ? '(none)' : `\`${b.pattern}\``} → ${h.pattern === undefined ? '(none)' : `\`${h.pattern}\``}`;
      if (request) add(relaxed ? 'pattern-relaxed' : 'pattern-changed', text);
      else add(relaxed || b.pattern !== undefined ? 'constraint-relaxed' : 'constraint-tightened', text);
    }
    if (b.enum || h.enum) {
      const removed = b.enum ? [...b.enum].filter((v) => !h.enum || !h.enum.has(v)) : [];
      const added = h.enum ? [...h.enum].filter((v) => !b.enum || !b.enum.has(v)) : [];
      const list = (vs: string[]) => vs.sort().join(', ');
      if (request) {
        if (!b.enum && h.enum) add('enum-value-removed', `is now restricted to ${list([...h.enum])}`);
        else if (removed.length) add('enum-value-removed', `no longer accepts ${list(removed)}`);
        if (b.enum && added.length) add('enum-value-added', `accepts ${list(added)}`);
      } else {
        if (b.enum && !h.enum) add('enum-value-added', 'is no longer an enum: any value may arrive');
        else if (b.enum && added.length) add('enum-value-added', `may now be ${list(added)}`);
        if (h.enum && removed.length) add('enum-value-removed', `is no longer ${list(removed)}`);
      }
    }
    for (const k of [...MAX_KEYS, ...MIN_KEYS, 'multipleOf'] as const) {
      const bv = b.bounds[k];
      const hv = h.bounds[k];
      if (bv === hv) continue;
      const isMax = (MAX_KEYS as readonly string[]).includes(k);
      // A new multipleOf tightens unless it divides the old one.
      const tightened = k === 'multipleOf' ? hv !== undefined && (bv === undefined || bv % hv !== 0) : isMax ? hv !== undefined && (bv === undefined || hv < bv) : hv !== undefined && (bv === undefined || hv > bv);
      const text = `\`${k}\` ${bv ?? '(none)'} → ${hv ?? '(none)'}`;
      if (request) add(tightened ? (SPECIFIC_REQUEST[k] ?? 'constraint-tightened') : 'constraint-relaxed', text);
      else add(tightened ? 'constraint-tightened' : 'constraint-relaxed', text);
    }
    if (request && b.default !== h.default) add('default-changed', `default ${b.default ?? '(none)'} → ${h.default ?? '(none)'}`);
    if (b.uniqueItems !== h.uniqueItems) add(h.uniqueItems === request ? 'constraint-tightened' : 'constraint-relaxed', `\`uniqueItems\` ${b.uniqueItems} → ${h.uniqueItems}`);
  }

  /** `then`, `contains`, `prefixItems`, ... compared as child pairs; `not` as a whole, the other way round. */
  #subschemas(b: Norm, h: Norm, request: boolean, add: (kind: string, message: string, rel?: string) => void, children: PairResult['children']): void {
    for (const k of [...new Set([...b.subs.keys(), ...h.subs.keys()])].sort()) {
      const bs = b.subs.get(k);
      const hs = h.subs.get(k);
      const rel = `(${k})`;
      if (bs && hs) children.push({ rel, b: this.base.of(bs), h: this.head.of(hs) });
      else if (hs) add('constraint-tightened', `now also constrained by \`${k}\``, rel);
      else add('constraint-relaxed', `no longer constrained by \`${k}\``, rel);
    }
    if (b.not === h.not) return;
    if (h.not === undefined) add('constraint-relaxed', 'no longer excludes values with `not`');
    else if (b.not === undefined) add('constraint-tightened', 'now excludes values with `not`');
    // A changed exclusion may exclude a value it let through before: a request may refuse it, a response may send one.
    else add(request ? 'constraint-tightened' : 'constraint-relaxed', '`not` changed: it may exclude values it let through, and let through values it excluded');
  }

  #objects(b: Norm, h: Norm, dir: Direction, add: (kind: string, message: string, rel?: string, at?: { base: string | null; head: string | null }) => void, children: PairResult['children']): void {
    const request = dir === 'request';
    if (b.additional !== false && h.additional === false && request) add('additional-properties-closed', 'now rejects fields it does not list (`additionalProperties: false`)');
    // What the other side never sends is not part of this direction's contract.
    const hidden = (n: Norm) => (request ? n.readOnly : n.writeOnly);
    const names = [...new Set([...b.properties.keys(), ...h.properties.keys()])].sort();
    for (const name of names) {
      const bp = b.properties.get(name);
      const hp = h.properties.get(name);
      const rel = `.${name}`;
      const bn = bp ? this.base.of(bp) : null;
      const hn = hp ? this.head.of(hp) : null;
      if ((!bn || hidden(bn)) && (!hn || hidden(hn))) continue;
      if (!bn || hidden(bn)) {
        const at = { base: bn ? bn.at : b.at, head: hp![0]!.at };
        if (request && h.required.has(name)) add('field-added-required', 'new required field', rel, at);
        else add('field-added', `new ${h.required.has(name) ? 'required' : 'optional'} field`, rel, at);
        continue;
      }
      if (!hn || hidden(hn)) {
        // Who reads a response or payload already handles an optional field's absence: a policy level of its own.
        const optional = !request && !b.required.has(name);
        const what = optional ? 'optional field' : 'field';
        add(optional ? 'optional-field-removed' : 'field-removed', hn ? `${what} removed (now ${request ? 'readOnly' : 'writeOnly'})` : `${what} removed`, rel, { base: bp![0]!.at, head: hn ? hn.at : h.at });
        continue;
      }
      const br = b.required.has(name);
      const hr = h.required.has(name);
      if (br !== hr) add(hr ? 'field-became-required' : 'field-became-optional', hr ? 'is now required' : 'is no longer required', rel, { base: bp![0]!.at, head: hp![0]!.at });
      children.push({ rel, b: bn, h: hn });
    }
    // Required names that are not properties: a new one in a request is still a new required field.
    if (request) {
      for (const name of h.required) {
        if (!b.required.has(name) && !h.properties.has(name) && !b.properties.has(name)) add('field-added-required', 'is now required', `.${name}`);
      }
    }
    if (Array.isArray(b.additional) && Array.isArray(h.additional)) children.push({ rel: '.*', b: this.base.of(b.additional), h: this.head.of(h.additional) });
  }

  /**
   * `oneOf` accepts a value only when exactly one branch matches it: two head branches that can both match a value
   * refuse values that one schema accepted. Reported when the base was one schema, or a `oneOf` whose branches could
   * never both match; a base `oneOf` that already overlapped was not read as exclusive by anyone.
   */
  #overlaps(b: Norm, h: Norm, bs: Norm[], hs: Norm[], add: (kind: string, message: string) => void): void {
    if (h.discriminator) return;
    const overlapping = (norms: Norms, ns: Norm[]): [number, number] | null => {
      for (let x = 0; x < ns.length; x += 1) for (let y = x + 1; y < ns.length; y += 1) if (mayOverlap(norms, ns[x]!, ns[y]!)) return [x, y];
      return null;
    };
    if (b.variants && (b.combinator !== 'oneOf' || overlapping(this.base, bs))) return;
    const found = overlapping(this.head, hs);
    if (!found) return;
    const name = (j: number) => hs[j]!.typeName ?? `branch ${j + 1}`;
    add('constraint-tightened', `oneOf ${name(found[0])} and ${name(found[1])} can both match one value, and oneOf refuses a value that matches two branches`);
  }

  /** Matches branches by content and reports the unmatched ones with the direction's polarity. */
  #variants(b: Norm, h: Norm, bs: Norm[], hs: Norm[], dir: Direction, findings: Finding[], children: PairResult['children']): void {
    const pairs = matchBranches(this, b, h, bs, hs);
    const matchedB = new Set(pairs.map(([i]) => i));
    const matchedH = new Set(pairs.map(([, j]) => j));
    for (const [i, j] of pairs) children.push({ rel: '', b: bs[i]!, h: hs[j]! });
    // `anyOf` branch `Card` removed; `oneOf` branch 2 (string) added: the combinator once, then the branch.
    const name = (n: Norm, i: number) => (n.typeName ? `\`${n.typeName}\`` : `${i + 1} (${typeText(n)})`);
    bs.forEach((n, i) => {
      if (!matchedB.has(i)) findings.push({ kind: 'variant-removed', rel: '', base: n.at, head: h.at, message: b.variants ? `\`${b.combinator}\` branch ${name(n, i)} removed` : `the schema became a \`${h.combinator ?? 'oneOf'}\` without a branch for its former shape (${typeText(n)})` });
    });
    hs.forEach((n, j) => {
      if (!matchedH.has(j)) findings.push({ kind: 'variant-added', rel: '', base: b.at, head: n.at, message: `\`${h.combinator ?? 'oneOf'}\` branch ${name(n, j)} added` });
    });
  }
}

/** The discriminator values a branch answers to. */
function discriminatorValues(c: Comparer, side: 'base' | 'head', parent: Norm, branch: Norm): Set<string> {
  const out = new Set<string>();
  const d = parent.discriminator;
  if (!d) return out;
  for (const [value, target] of d.mapping) if (target === branch.at) out.add(value);
  if (out.size === 0) {
    const prop = branch.properties.get(d.property);
    const tag = prop ? (side === 'base' ? c.base : c.head).of(prop) : null;
    if (tag?.enum) for (const v of tag.enum) out.add(v);
    else if (branch.typeName && d.mapping.size === 0) out.add(JSON.stringify(branch.typeName));
  }
  return out;
}

/** Properties whose value is one constant: the tags that tell branches apart. */
function tags(norms: Norms, n: Norm): Map<string, string> {
  const out = new Map<string, string>();
  for (const [name, subs] of n.properties) {
    const p = norms.of(subs);
    if (p.enum && p.enum.size === 1) out.set(name, [...p.enum][0]!);
  }
  return out;
}

/**
 * Whether some value may satisfy both branches: their types overlap, no single-value tag tells them apart, their
 * enums share a value, and neither closes its properties against a field the other requires.
 */
function mayOverlap(norms: Norms, x: Norm, y: Norm): boolean {
  if (!overlap(x.types, y.types)) return false;
  if (x.enum && y.enum && ![...x.enum].some((v) => y.enum!.has(v))) return false;
  const tx = tags(norms, x);
  for (const [name, value] of tags(norms, y)) if (tx.has(name) && tx.get(name) !== value) return false;
  const closedAgainst = (a: Norm, other: Norm) => a.additional === false && [...other.required].some((r) => !a.properties.has(r));
  return !closedAgainst(x, y) && !closedAgainst(y, x);
}

/** Whether two type sets share a value (null is any type; an empty set is `never` and overlaps nothing). */
function overlap(a: Set<string> | null, b: Set<string> | null): boolean {
  if (a === null || b === null) return true;
  return [...a].some((t) => accepts(b, t)) || [...b].some((t) => accepts(a, t));
}

function jaccard(a: Set<string> | string[], b: Set<string> | string[]): number {
  const x = new Set(a);
  const y = new Set(b);
  if (x.size === 0 && y.size === 0) return 1;
  let both = 0;
  for (const v of x) if (y.has(v)) both += 1;
  return both / (x.size + y.size - both);
}

/** Pairs of branch indexes (base, head) that are the same branch, by discriminator value, then by structure. */
export function matchBranches(c: Comparer, bParent: Norm, hParent: Norm, bs: Norm[], hs: Norm[]): Array<[number, number]> {
  const pairs: Array<[number, number]> = [];
  const freeB = new Set(bs.map((_, i) => i));
  const freeH = new Set(hs.map((_, j) => j));
  if (bParent.discriminator && hParent.discriminator && bParent.discriminator.property === hParent.discriminator.property) {
    const bVals = bs.map((n) => discriminatorValues(c, 'base', bParent, n));
    const hVals = hs.map((n) => discriminatorValues(c, 'head', hParent, n));
    for (const i of [...freeB]) {
      for (const j of [...freeH]) {
        if ([...bVals[i]!].some((v) => hVals[j]!.has(v))) {
          pairs.push([i, j]);
          freeB.delete(i);
          freeH.delete(j);
          break;
        }
      }
    }
  }
  const scored: Array<{ i: number; j: number; score: number }> = [];
  const bTags = bs.map((n) => tags(c.base, n));
  const hTags = hs.map((n) => tags(c.head, n));
  for (const i of freeB) {
    for (const j of freeH) {
      const bn = bs[i]!;
      const hn = hs[j]!;
      if (!overlap(bn.types, hn.types)) continue;
      let score = 1;
      let conflict = false;
      for (const [name, value] of bTags[i]!) {
        const other = hTags[j]!.get(name);
        if (other === undefined) continue;
        if (other === value) score += 10;
        else conflict = true;
      }
      if (conflict) continue;
      if (bn.typeName && bn.typeName === hn.typeName) score += 6;
      if (bn.enum && hn.enum) score += 4 * jaccard(bn.enum, hn.enum);
      score += 3 * jaccard(bn.required, hn.required) + 2 * jaccard([...bn.properties.keys()], [...hn.properties.keys()]);
      if (bn.types && hn.types && bn.types.size === hn.types.size && [...bn.types].every((t) => hn.types!.has(t))) score += 1;
      scored.push({ i, j, score });
    }
  }
  scored.sort((x, y) => y.score - x.score || x.i - y.i || x.j - y.j);
  for (const s of scored) {
    if (!freeB.has(s.i) || !freeH.has(s.j)) continue;
    // A weak resemblance only pairs branches when nothing else is left to pair.
    if (s.score < 2.5 && !(freeB.size === 1 && freeH.size === 1)) continue;
    pairs.push([s.i, s.j]);
    freeB.delete(s.i);
    freeH.delete(s.j);
  }
  return pairs.sort((x, y) => x[0] - y[0]);
}

/** The change id of a finding's kind under a polarity. */
export function idFor(polarity: Polarity, kind: string): string {
  if (polarity === 'request') return kind.startsWith('field-') ? `request-body-${kind}` : `request-${kind}`;
  return polarity === 'response' ? `response-${kind}` : `webhook-payload-${kind}`;
}

/** Joins a field path and a relative one (`data` + `.id` → `data.id`, `''` + `.id` → `id`). */
export function joinField(prefix: string, rel: string): string {
  if (rel === '') return prefix;
  if (prefix === '') return rel.startsWith('.') ? rel.slice(1) : rel;
  return `${prefix}${rel}`;
}

export interface Reached {
  finding: Finding;
  field: string;
  typeName?: string;
}

/**
 * Every finding reachable from a root pair, each pair visited once (`seen` is shared by the roots of one operation
 * or event, so a schema reached from several of its responses is reported once), at the shortest field path.
 */
export function reach(c: Comparer, base: Sub[], head: Sub[], dir: Direction, field: string, seen: Set<string>, typeName?: string): Reached[] {
  const out: Reached[] = [];
  const queue: Array<{ b: Norm; h: Norm; field: string; typeName?: string }> = [{ b: c.base.of(base), h: c.head.of(head), field, ...(typeName ? { typeName } : {}) }];
  for (let k = 0; k < queue.length; k += 1) {
    const q = queue[k]!;
    const key = `${dir}\0${q.b.key}\0${q.h.key}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const r = c.pair(q.b, q.h, dir);
    const type = r.typeName ?? q.typeName;
    for (const f of r.findings) out.push({ finding: f, field: joinField(q.field, f.rel), ...(type ? { typeName: type } : {}) });
    for (const child of r.children) queue.push({ b: child.b, h: child.h, field: joinField(q.field, child.rel), ...(type ? { typeName: type } : {}) });
  }
  return out;
}

/** Whether `value` satisfies `n` (types, enum, bounds, required and listed properties, items, branches); patterns and formats are not run. */
export function validates(norms: Norms, n: Norm, value: unknown, budget = { left: 5000 }, depth = 0): boolean {
  if (depth > 32 || (budget.left -= 1) < 0) return true;
  if (value === null) return n.nullable || n.types === null;
  const t = jsonType(value);
  if (n.types !== null && !accepts(n.types, t)) return false;
  if (n.enum && !n.enum.has(canonical(value))) return false;
  const num = (k: BoundKey) => n.bounds[k];
  if (typeof value === 'number') {
    if (num('maximum') !== undefined && value > num('maximum')!) return false;
    if (num('minimum') !== undefined && value < num('minimum')!) return false;
    if (num('exclusiveMaximum') !== undefined && value >= num('exclusiveMaximum')!) return false;
    if (num('exclusiveMinimum') !== undefined && value <= num('exclusiveMinimum')!) return false;
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (num('maxLength') !== undefined && length > num('maxLength')!) return false;
    if (num('minLength') !== undefined && length < num('minLength')!) return false;
  }
  if (Array.isArray(value)) {
    if (num('maxItems') !== undefined && value.length > num('maxItems')!) return false;
    if (num('minItems') !== undefined && value.length < num('minItems')!) return false;
    if (n.items) {
      const items = norms.of(n.items);
      if (!value.every((v) => validates(norms, items, v, budget, depth + 1))) return false;
    }
  }
  if (isObject(value)) {
    for (const r of n.required) if (!(r in value) && !(n.properties.has(r) && norms.of(n.properties.get(r)!).readOnly)) return false;
    for (const [k, v] of Object.entries(value)) {
      const p = n.properties.get(k);
      if (p) {
        if (!validates(norms, norms.of(p), v, budget, depth + 1)) return false;
      } else if (n.additional === false) return false;
      else if (Array.isArray(n.additional) && !validates(norms, norms.of(n.additional), v, budget, depth + 1)) return false;
    }
  }
  if (n.variants) return n.variants.some((s) => validates(norms, norms.of([s]), value, budget, depth + 1));
  return true;
}
