/**
 * Structural comparison of two JSON Schemas with a polarity. `$ref`s are followed on each side in its own
 * document, `allOf` is merged, `anyOf`/`oneOf` with a `null` branch is read as nullable, so a schema written
 * inline or behind a `$ref`, or moved to another component name, compares equal to itself.
 */
import type { JsonObject } from '../model/index.js';
import type { Collector, Scope } from './change.js';

export type Polarity = 'request' | 'response' | 'webhook';

const SCHEMA_REF = /^#\/components\/schemas\/([^/]+)$/;
const ANNOTATIONS = new Set(['$ref', 'description', 'summary', 'title', 'examples', 'example', 'deprecated', 'readOnly', 'writeOnly', 'x-assumption', 'x-enumDescriptions', '$comment']);
const MAX_KEYS = ['maxLength', 'maximum', 'exclusiveMaximum', 'maxItems'] as const;
const MIN_KEYS = ['minLength', 'minimum', 'exclusiveMinimum', 'minItems'] as const;

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function token(t: string): string {
  return t.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Follows a `$ref` chain inside `doc`; returns the node, its pointer and the component name it came through. */
export function resolveRef(doc: JsonObject, node: unknown, at: string): { node: unknown; at: string; name?: string } {
  let current = node;
  let where = at;
  let name: string | undefined;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string' && hops < 64; hops += 1) {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) break;
    let target: unknown = doc;
    for (const raw of ref.slice(2).split('/')) {
      const t = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      target = isObject(target) ? target[t] : undefined;
    }
    const m = SCHEMA_REF.exec(ref);
    if (m) name = m[1];
    current = target;
    where = ref;
  }
  return { node: current, at: where, ...(name ? { name } : {}) };
}

interface Sub {
  node: unknown;
  at: string;
}

/** A schema flattened for comparison. `types` null means any type. */
export interface Norm {
  at: string;
  typeName?: string;
  types: Set<string> | null;
  nullable: boolean;
  format?: string;
  pattern?: string;
  enum?: Set<string>;
  bounds: Partial<Record<(typeof MAX_KEYS)[number] | (typeof MIN_KEYS)[number] | 'multipleOf', number>>;
  uniqueItems: boolean;
  properties: Map<string, Sub[]>;
  required: Set<string>;
  additional?: false | Sub;
  items?: Sub;
  variants?: Sub[];
}

function empty(at: string): Norm {
  return { at, types: null, nullable: true, bounds: {}, uniqueItems: false, properties: new Map(), required: new Set() };
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

/** Merges `b` into `a` as `allOf` does (both must hold). */
function intersect(a: Norm, b: Norm): Norm {
  const out: Norm = { ...a, bounds: { ...a.bounds }, properties: new Map(a.properties), required: new Set([...a.required, ...b.required]) };
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
  for (const [name, subs] of b.properties) out.properties.set(name, [...(out.properties.get(name) ?? []), ...subs]);
  out.additional = a.additional === false || b.additional === false ? false : (a.additional ?? b.additional);
  out.items = a.items ?? b.items;
  out.variants = a.variants ?? b.variants;
  out.typeName = a.typeName ?? b.typeName;
  // Point at the named part (`allOf: [{ $ref: Envelope }, { properties: { data: { $ref: Data } } }]` → Data).
  if (!a.typeName && b.typeName) out.at = b.at;
  return out;
}

/** Flattens a schema (a list of schemas that all hold, for a property defined in several `allOf` parts). */
export function normalise(doc: JsonObject, subs: Sub[], depth = 0): Norm {
  const parts = subs.map((s) => normaliseOne(doc, s.node, s.at, depth));
  return parts.slice(1).reduce(intersect, parts[0] ?? empty(subs[0]?.at ?? '#'));
}

function normaliseOne(doc: JsonObject, raw: unknown, rawAt: string, depth: number): Norm {
  if (depth > 48) return empty(rawAt);
  // `$ref` with sibling keywords (3.1): both hold.
  if (isObject(raw) && typeof raw.$ref === 'string' && Object.keys(raw).some((k) => !ANNOTATIONS.has(k))) {
    const { $ref, ...rest } = raw;
    return intersect(normaliseOne(doc, { $ref }, rawAt, depth + 1), normaliseOne(doc, rest, rawAt, depth + 1));
  }
  const r = resolveRef(doc, raw, rawAt);
  if (raw === false || !isObject(r.node)) return { ...empty(r.at), types: new Set(), nullable: false };
  const s = r.node;
  let n: Norm = empty(r.at);
  if (r.name) n.typeName = r.name;
  // type
  const declared = Array.isArray(s.type) ? s.type.map(String) : typeof s.type === 'string' ? [s.type] : null;
  const values = Array.isArray(s.enum) ? s.enum : s.const !== undefined ? [s.const] : null;
  if (declared) {
    n.nullable = declared.includes('null');
    n.types = new Set(declared.filter((t) => t !== 'null'));
  } else if (values) {
    n.nullable = values.includes(null);
    n.types = new Set(values.filter((v) => v !== null).map(jsonType));
  } else if (isObject(s.properties) || Array.isArray(s.required) || s.additionalProperties !== undefined) {
    n.types = new Set(['object']);
    n.nullable = false;
  } else if (s.items !== undefined) {
    n.types = new Set(['array']);
    n.nullable = false;
  }
  if (values) {
    n.enum = new Set(values.filter((v) => v !== null).map((v) => JSON.stringify(v)));
    if (!values.includes(null)) n.nullable = false;
  }
  if (typeof s.format === 'string') n.format = s.format;
  if (typeof s.pattern === 'string') n.pattern = s.pattern;
  for (const k of [...MAX_KEYS, ...MIN_KEYS, 'multipleOf'] as const) if (typeof s[k] === 'number') n.bounds[k] = s[k] as number;
  n.uniqueItems = s.uniqueItems === true;
  if (isObject(s.properties)) for (const [name, sub] of Object.entries(s.properties)) n.properties.set(name, [{ node: sub, at: `${r.at}/properties/${token(name)}` }]);
  if (Array.isArray(s.required)) n.required = new Set(s.required.map(String));
  if (s.additionalProperties === false) n.additional = false;
  else if (isObject(s.additionalProperties)) n.additional = { node: s.additionalProperties, at: `${r.at}/additionalProperties` };
  if (s.items !== undefined && typeof s.items !== 'boolean') n.items = { node: s.items, at: `${r.at}/items` };
  if (Array.isArray(s.allOf)) {
    s.allOf.forEach((part, i) => {
      n = intersect(n, normaliseOne(doc, part, `${r.at}/allOf/${i}`, depth + 1));
    });
  }
  for (const key of ['anyOf', 'oneOf'] as const) {
    if (!Array.isArray(s[key])) continue;
    const branches = (s[key] as unknown[]).map((part, i) => ({ sub: { node: part, at: `${r.at}/${key}/${i}` }, norm: normaliseOne(doc, part, `${r.at}/${key}/${i}`, depth + 1) }));
    const isNull = (b: Norm) => b.nullable && b.types !== null && b.types.size === 0;
    const real = branches.filter((b) => !isNull(b.norm));
    const hasNull = real.length < branches.length || real.some((b) => b.norm.nullable);
    if (real.length === 1) {
      n = intersect(n, { ...real[0]!.norm, nullable: true });
      n.nullable = hasNull && (declared === null || declared.includes('null'));
      if (!n.typeName && real[0]!.norm.typeName) n.typeName = real[0]!.norm.typeName;
    } else if (real.length > 1) {
      const types = real.every((b) => b.norm.types !== null) ? new Set(real.flatMap((b) => [...b.norm.types!])) : null;
      n = intersect(n, { ...empty(r.at), types, nullable: true });
      n.nullable = hasNull;
      n.variants = real.map((b) => b.sub);
    }
  }
  return n;
}

/** Whether type set `a` accepts every value of type `t`. */
function accepts(a: Set<string> | null, t: string): boolean {
  return a === null || a.has(t) || (t === 'integer' && a.has('number'));
}

function typeText(n: Norm): string {
  const t = n.types === null ? 'any' : [...n.types].sort().join(' | ') || 'never';
  return n.nullable && n.types !== null ? `${t} | null` : t;
}

const QUANT = /\{(\d+)(,(\d*))?\}/g;
/** True when `head` is `base` with only its `{m,n}` repetition bounds widened. */
export function patternWidened(base: string, head: string): boolean {
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

function idFor(polarity: Polarity, kind: string): string {
  if (polarity === 'request') return kind.startsWith('field-') ? `request-body-${kind}` : `request-${kind}`;
  return polarity === 'response' ? `response-${kind}` : `webhook-payload-${kind}`;
}

export interface SchemaWalk {
  collector: Collector;
  scope: Scope;
  polarity: Polarity;
  baseDoc: JsonObject;
  headDoc: JsonObject;
}

/** Compares two schemas (each a list of parts that all hold) and reports every difference under `field`. */
export function compareSchemas(w: SchemaWalk, base: Sub[], head: Sub[], field: string, visited = new Set<string>(), typeName?: string): void {
  const b = normalise(w.baseDoc, base);
  const h = normalise(w.headDoc, head);
  const pairKey = `${b.at}|${h.at}`;
  if (visited.has(pairKey) || visited.size > 5000) return;
  // A pair already open on this path is a recursive schema: stop there.
  const inner = new Set(visited).add(pairKey);
  const type = h.typeName ?? b.typeName ?? typeName;
  const where = { base: b.at, head: h.at, field };
  const label = field === '' ? 'the body' : `\`${field}\``;
  const emit = (kind: string, message: string, at: { base: string | null; head: string | null } = where): void => {
    w.collector.add(idFor(w.polarity, kind), w.scope, { ...at, field }, message, type ? [`type ${type}`] : []);
  };
  const request = w.polarity === 'request';

  // Types and null.
  const typesDiffer = !(b.types === null && h.types === null) && (b.types === null || h.types === null || b.types.size !== h.types.size || [...b.types].some((t) => !h.types!.has(t)));
  if (typesDiffer) {
    if (request) {
      const lost = b.types === null ? h.types !== null : [...b.types].some((t) => !accepts(h.types, t));
      emit(lost ? 'type-changed' : 'type-widened', `${label} ${lost ? 'no longer accepts every type it did' : 'accepts more types'}: ${typeText(b)} → ${typeText(h)}`);
    } else {
      const gained = h.types === null ? b.types !== null : [...h.types].some((t) => !accepts(b.types, t));
      emit(gained ? 'type-changed' : 'type-narrowed', `${label} ${gained ? 'may now be of another type' : 'has fewer possible types'}: ${typeText(b)} → ${typeText(h)}`);
    }
  }
  if (b.nullable !== h.nullable && !(b.types === null && h.types === null)) {
    if (request) emit(h.nullable ? 'nullable-added' : 'nullable-removed', `${label} ${h.nullable ? 'now accepts' : 'no longer accepts'} null`);
    else emit(h.nullable ? 'field-became-nullable' : 'nullable-removed', `${label} ${h.nullable ? 'may now be' : 'is no longer'} null`);
  }
  // Format.
  if (b.format !== h.format) {
    if (h.format === undefined) emit('format-removed', `${label} lost \`format: ${b.format}\``);
    else if (request || b.format !== undefined) emit('format-changed', `${label} format ${b.format ?? '(none)'} → ${h.format}`);
    else emit('constraint-tightened', `${label} gained \`format: ${h.format}\``);
  }
  // Pattern.
  if (b.pattern !== h.pattern) {
    const relaxed = h.pattern === undefined || (b.pattern !== undefined && patternWidened(b.pattern, h.pattern));
    const text = `${label} pattern ${b.pattern === undefined ? '(none)' : `\`${b.pattern}\``} → ${h.pattern === undefined ? '(none)' : `\`${h.pattern}\``}`;
    if (request) emit(relaxed ? 'pattern-relaxed' : 'pattern-changed', text);
    else emit(relaxed || b.pattern !== undefined ? 'constraint-relaxed' : 'constraint-tightened', text);
  }
  // Enum.
  if (b.enum || h.enum) {
    const removed = b.enum ? [...b.enum].filter((v) => !h.enum || !h.enum.has(v)) : [];
    const added = h.enum ? [...h.enum].filter((v) => !b.enum || !b.enum.has(v)) : [];
    const list = (vs: string[]) => vs.sort().join(', ');
    if (request) {
      if (!b.enum && h.enum) emit('enum-value-removed', `${label} is now restricted to ${list([...h.enum])}`);
      else if (removed.length) emit('enum-value-removed', `${label} no longer accepts ${list(removed)}`);
      if (b.enum && added.length) emit('enum-value-added', `${label} accepts ${list(added)}`);
    } else {
      if (b.enum && !h.enum) emit('enum-value-added', `${label} is no longer an enum: any value may arrive`);
      else if (b.enum && added.length) emit('enum-value-added', `${label} may now be ${list(added)}`);
      if (h.enum && removed.length) emit('enum-value-removed', `${label} is no longer ${list(removed)}`);
    }
  }
  // Bounds.
  for (const k of [...MAX_KEYS, ...MIN_KEYS, 'multipleOf'] as const) {
    const bv = b.bounds[k];
    const hv = h.bounds[k];
    if (bv === hv) continue;
    const isMax = (MAX_KEYS as readonly string[]).includes(k);
    const tightened = k === 'multipleOf' ? hv !== undefined : isMax ? hv !== undefined && (bv === undefined || hv < bv) : hv !== undefined && (bv === undefined || hv > bv);
    const text = `${label} \`${k}\` ${bv ?? '(none)'} → ${hv ?? '(none)'}`;
    if (request) {
      const specific: Record<string, string> = { maxLength: 'max-length-decreased', maximum: 'maximum-decreased', exclusiveMaximum: 'maximum-decreased', minLength: 'min-length-increased', minimum: 'minimum-increased', exclusiveMinimum: 'minimum-increased' };
      emit(tightened ? (specific[k] ?? 'constraint-tightened') : 'constraint-relaxed', text);
    } else emit(tightened ? 'constraint-tightened' : 'constraint-relaxed', text);
  }
  if (b.uniqueItems !== h.uniqueItems) {
    const text = `${label} \`uniqueItems\` ${b.uniqueItems} → ${h.uniqueItems}`;
    emit(h.uniqueItems === request ? 'constraint-tightened' : 'constraint-relaxed', text);
  }
  // Objects.
  if (b.additional !== false && h.additional === false && request) emit('additional-properties-closed', `${label} now rejects fields it does not list (\`additionalProperties: false\`)`);
  const names = [...new Set([...b.properties.keys(), ...h.properties.keys()])].sort();
  for (const name of names) {
    const bp = b.properties.get(name);
    const hp = h.properties.get(name);
    const sub = field === '' ? name : `${field}.${name}`;
    const subLabel = `\`${sub}\``;
    if (!bp && hp) {
      const at = { base: b.at, head: hp[0]!.at };
      if (request && h.required.has(name)) w.collector.add(idFor(w.polarity, 'field-added-required'), w.scope, { ...at, field: sub }, `new required field ${subLabel}`, type ? [`type ${type}`] : []);
      else w.collector.add(idFor(w.polarity, 'field-added'), w.scope, { ...at, field: sub }, `new ${h.required.has(name) ? 'required' : 'optional'} field ${subLabel}`, type ? [`type ${type}`] : []);
      continue;
    }
    if (bp && !hp) {
      w.collector.add(idFor(w.polarity, 'field-removed'), w.scope, { base: bp[0]!.at, head: h.at, field: sub }, `field ${subLabel} removed`, type ? [`type ${type}`] : []);
      continue;
    }
    const br = b.required.has(name);
    const hr = h.required.has(name);
    const at = { base: bp![0]!.at, head: hp![0]!.at, field: sub };
    if (br !== hr) {
      const kind = hr ? 'field-became-required' : 'field-became-optional';
      w.collector.add(idFor(w.polarity, kind), w.scope, at, `field ${subLabel} ${hr ? 'is now required' : 'is no longer required'}`, type ? [`type ${type}`] : []);
    }
    compareSchemas(w, bp!, hp!, sub, inner, type);
  }
  // Required names that are not properties (rare): a new one in a request is still a new required field.
  if (request) {
    for (const name of h.required) {
      if (!b.required.has(name) && !h.properties.has(name) && !b.properties.has(name)) {
        const sub = field === '' ? name : `${field}.${name}`;
        w.collector.add('request-body-field-added-required', w.scope, { ...where, field: sub }, `\`${sub}\` is now required`, type ? [`type ${type}`] : []);
      }
    }
  }
  if (b.additional && h.additional) compareSchemas(w, [b.additional], [h.additional], `${field}.*`, inner, type);
  if (b.items && h.items) compareSchemas(w, [b.items], [h.items], `${field}[]`, inner, type);
  if (b.variants && h.variants && b.variants.length === h.variants.length) {
    b.variants.forEach((v, i) => compareSchemas(w, [v], [h.variants![i]!], field, inner, type));
  }
}
