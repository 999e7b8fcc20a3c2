/** Walks the operations of both sides: identity, parameters, request body, responses (bodies by media type, headers, links), errors, security. */
import type { Collector, Scope } from './change.js';
import { canonical, isJsonMedia, isObject, type DiffDoc, type Example, type Media, type Op, type Param, type Resp, type Sub } from './document.js';
import { idFor, reach, validates, type Comparer, type Polarity } from './schema.js';
import { operationTouches, queryTypeName } from './touches.js';

export interface Context {
  base: DiffDoc;
  head: DiffDoc;
  comparer: Comparer;
  collector: Collector;
  /** The day sunset dates are judged against (`YYYY-MM-DD`). */
  today: string;
}

const PAGE_SIZE = /^(per_?page|page_?size|limit)$/i;

export function endpoint(op: Op): string {
  return `${op.method.toUpperCase()} ${op.path}`;
}

/** The path with parameter names blanked, so renaming `{id}` to `{uuid}` is not a path change. */
function pathShape(route: string): string {
  return route.replace(/\{[^}]+\}/g, '{}');
}

export interface RootOptions {
  typeName?: string;
  /**
   * The value travels as text (XML, form, plain text: any media type that is not JSON), so a value of any type can
   * be read as a string: a request type that becomes `string`, or a response type that was `string`, loses nothing.
   */
  loose?: boolean;
  /** A parameter's schema: its own `default` is judged by the parameter check. */
  parameter?: boolean;
  /** Why the value is text on the wire, said with a loose type change (`not JSON`, `a query value`). */
  textBecause?: string;
}

/** Separate visited sets for loosely typed roots, so a pair judged leniently there is still judged strictly in JSON. */
const looseSeen = new WeakMap<Set<string>, Set<string>>();

/**
 * Compares two schemas from a root (a body, a parameter, a header, a payload) and reports what it reaches;
 * returns how many changes it found. `seen` is the operation's or event's set of compared pairs.
 */
export function compareRoot(ctx: Context, scope: Scope, polarity: Polarity, base: Sub, head: Sub, field: string, seen: Set<string>, options: RootOptions = {}): number {
  let visited = seen;
  if (options.loose) {
    visited = looseSeen.get(seen) ?? new Set();
    looseSeen.set(seen, visited);
  }
  const found = reach(ctx.comparer, [base], [head], polarity === 'request' ? 'request' : 'response', field, visited, options.typeName);
  for (const r of found) {
    let { kind, message } = r.finding;
    if (options.parameter && kind === 'default-changed' && r.field === field) continue;
    if (options.loose && kind === 'type-changed' && r.finding.types) {
      const text = polarity === 'request' ? r.finding.types.head : r.finding.types.base;
      if (text?.length === 1 && text[0] === 'string') {
        kind = polarity === 'request' ? 'type-widened' : 'type-narrowed';
        message = `${message} (${options.textBecause ?? 'not JSON'}: any value is text on the wire)`;
      }
    }
    const touches = ctx.head.toolkit && r.typeName ? [`type ${r.typeName}`] : [];
    ctx.collector.add(idFor(polarity, kind), scope, { base: r.finding.base, head: r.finding.head, field: r.field }, message, touches);
  }
  return found.length;
}

/**
 * Examples of the head that its schema refuses, where the base's same example was accepted (or is new): the
 * documentation now shows what the contract refuses.
 */
export function compareExamples(ctx: Context, scope: Scope, b: Media, h: Media): void {
  if (!h.schema || h.examples.length === 0) return;
  const headNorm = ctx.comparer.head.of([h.schema]);
  const baseNorm = b.schema ? ctx.comparer.base.of([b.schema]) : null;
  for (const e of h.examples) {
    if (validates(ctx.comparer.head, headNorm, e.value)) continue;
    const same: Example | undefined = b.examples.find((x) => canonical(x.value) === canonical(e.value));
    if (same && baseNorm && !validates(ctx.comparer.base, baseNorm, same.value)) continue;
    ctx.collector.add('example-no-longer-valid', scope, { base: same?.at ?? null, head: e.at }, 'the example does not match the schema any more');
  }
}

/** Compares the content of a body (request, response or payload) media type by media type. */
export function compareContent(ctx: Context, scope: Scope, polarity: Polarity, b: Map<string, Media>, h: Map<string, Media>, where: { base: string; head: string }, seen: Set<string>, typeName?: string): void {
  const side = polarity === 'request' ? 'request' : 'response';
  for (const [type, bm] of b) {
    const hm = h.get(type);
    if (!hm) {
      if (h.size > 0 && polarity !== 'webhook') ctx.collector.add(`${side}-media-type-removed`, scope, { base: bm.at, head: where.head, field: type }, `media type ${type} no longer ${side === 'request' ? 'accepted' : 'offered'}`);
      continue;
    }
    // A media type without a schema takes anything: adding one constrains it, removing one frees it.
    const options: RootOptions = { loose: !isJsonMedia(type), ...(typeName ? { typeName } : {}) };
    if (bm.schema || hm.schema) compareRoot(ctx, scope, polarity, bm.schema ?? { node: {}, at: bm.at }, hm.schema ?? { node: {}, at: hm.at }, '', seen, options);
    compareExamples(ctx, scope, bm, hm);
  }
  if (b.size > 0 && polarity !== 'webhook') {
    for (const [type, hm] of h) if (!b.has(type)) ctx.collector.add(`${side}-media-type-added`, scope, { base: where.base, head: hm.at, field: type }, `media type ${type} now ${side === 'request' ? 'accepted' : 'offered'}`);
  }
}

function jsonMedia(content: Map<string, Media>): Media | null {
  for (const [type, m] of content) if (isJsonMedia(type)) return m;
  return null;
}

/** A `{ data: [...], meta, links }` page envelope (D1). */
function isPage(c: Comparer, side: 'base' | 'head', m: Media | null): boolean {
  if (!m?.schema) return false;
  const norms = side === 'base' ? c.base : c.head;
  const n = norms.of([m.schema]);
  const data = n.properties.get('data');
  return data !== undefined && n.properties.has('meta') && n.properties.has('links') && norms.of(data).types?.has('array') === true;
}

function describeLink(node: Record<string, unknown>): string {
  return canonical({ operationId: node.operationId, operationRef: node.operationRef, parameters: node.parameters, requestBody: node.requestBody, server: node.server });
}

function compareResponse(ctx: Context, scope: Scope, b: Resp, h: Resp, seen: Set<string>, success: boolean): void {
  const add = (id: string, where: { base: string | null; head: string | null; field?: string }, message: string) => ctx.collector.add(id, scope, where, message);
  const bJson = jsonMedia(b.content);
  const hJson = jsonMedia(h.content);
  if (success && b.content.size > 0 && h.content.size === 0) {
    add('response-body-changed', { base: b.at, head: h.at }, `the ${b.status} answer no longer has a body`);
  } else if (success && isPage(ctx.comparer, 'base', bJson) !== isPage(ctx.comparer, 'head', hJson) && bJson && hJson) {
    add('pagination-envelope-changed', { base: b.at, head: h.at }, isPage(ctx.comparer, 'head', hJson) ? 'the list is now paginated (`{ data, meta, links }`)' : 'the response is no longer a paginated `{ data, meta, links }` envelope');
  }
  compareContent(ctx, scope, 'response', b.content, h.content, { base: b.at, head: h.at }, seen);
  for (const [key, bh] of b.headers) {
    if (key === 'content-type') continue;
    const hh = h.headers.get(key);
    const field = `header ${bh.name}`;
    if (!hh) {
      add(bh.required ? 'response-header-removed' : 'response-optional-header-removed', { base: bh.at, head: h.at, field }, `header ${bh.name} no longer documented on ${b.status}`);
      continue;
    }
    if (bh.required && !hh.required) add('response-header-became-optional', { base: bh.at, head: hh.at, field }, `header ${bh.name} is no longer required on ${b.status}`);
    if (bh.schema && hh.schema) compareRoot(ctx, scope, 'response', bh.schema, hh.schema, field, seen);
  }
  for (const [key, hh] of h.headers) if (key !== 'content-type' && !b.headers.has(key)) add('response-header-added', { base: b.at, head: hh.at, field: `header ${hh.name}` }, `header ${hh.name} documented on ${h.status}`);
  for (const [name, bl] of b.links) {
    const hl = h.links.get(name);
    if (!hl) add('response-link-removed', { base: bl.at, head: h.at, field: `link ${name}` }, `link ${name} of ${b.status} removed`);
    else if (describeLink(bl.node) !== describeLink(hl.node)) add('response-link-changed', { base: bl.at, head: hl.at, field: `link ${name}` }, `link ${name} of ${b.status} now points at another operation or takes other parameters`);
  }
  for (const [name, hl] of h.links) if (!b.links.has(name)) add('response-link-added', { base: b.at, head: hl.at, field: `link ${name}` }, `link ${name} added to ${h.status}`);
}

/** Error codes an error response documents in its examples (`error.code`). */
function errorCodes(op: Op): Map<string, string> {
  const codes = new Map<string, string>();
  for (const [status, r] of [...op.responses].sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0))) {
    if (!/^[45]/.test(status) && status !== 'DEFAULT') continue;
    const json = jsonMedia(r.content);
    for (const ex of json?.examples ?? []) {
      const code = isObject(ex.value) && isObject(ex.value.error) ? ex.value.error.code : undefined;
      if (typeof code === 'string' && !codes.has(code)) codes.set(code, json!.at);
    }
  }
  return codes;
}

function schemeShape(doc: DiffDoc, name: string): string {
  const s = doc.schemes.get(name)?.node;
  if (!s) return 'missing';
  return canonical({ type: s.type, scheme: typeof s.scheme === 'string' ? s.scheme.toLowerCase() : s.scheme, in: s.in, name: s.name, openIdConnectUrl: s.openIdConnectUrl });
}

function schemeText(doc: DiffDoc, name: string): string {
  const s = doc.schemes.get(name)?.node;
  if (!s) return 'undefined';
  if (s.type === 'http') return `http ${String(s.scheme ?? '')}`;
  if (s.type === 'apiKey') return `apiKey in ${String(s.in)} ${String(s.name)}`;
  return String(s.type);
}

function compareSecurity(ctx: Context, scope: Scope, b: Op, h: Op): void {
  const add = (id: string, where: { base: string | null; head: string | null }, message: string) => ctx.collector.add(id, scope, where, message);
  const where = { base: b.security.at, head: h.security.at };
  const anonymous = (alts: Op['security']['alternatives']) => alts.length === 0 || alts.some((a) => a.schemes.length === 0);
  const bAlts = b.security.alternatives;
  const hAlts = h.security.alternatives;
  const text = (alts: Op['security']['alternatives']) => alts.map((a) => (a.scopes.length ? a.scopes.join(' + ') : a.schemes.join(' + ') || 'any token')).join(' | ') || 'none';
  if (anonymous(bAlts) && !anonymous(hAlts)) add('security-added', where, `now requires ${text(hAlts)}`);
  else if (!anonymous(bAlts) && anonymous(hAlts)) add('security-removed', where, `no longer requires credentials (was ${text(bAlts)})`);
  else if (!anonymous(bAlts)) {
    const covered = (alts: typeof bAlts, need: (typeof bAlts)[number]) => alts.some((alt) => alt.schemes.every((s) => need.schemes.includes(s)) && alt.scopes.every((s) => need.scopes.includes(s)));
    const lost = bAlts.filter((alt) => !covered(hAlts, alt));
    const gained = hAlts.filter((alt) => !covered(bAlts, alt));
    if (lost.length) add('security-ability-changed', where, `abilities ${text(bAlts)} → ${text(hAlts)}: a token with ${text(lost)} is refused`);
    else if (gained.length) add('security-ability-relaxed', where, `abilities ${text(bAlts)} → ${text(hAlts)}`);
  }
  // A scheme's own definition: one edit, reported at the scheme for every operation that uses it (grouped as one).
  const used = (alts: typeof bAlts) => new Set(alts.flatMap((a) => a.schemes));
  const hUsed = used(hAlts);
  for (const name of [...used(bAlts)].filter((n) => hUsed.has(n)).sort()) {
    if (schemeShape(ctx.base, name) !== schemeShape(ctx.head, name)) {
      ctx.collector.add('security-scheme-changed', scope, { base: ctx.base.schemes.get(name)?.at ?? null, head: ctx.head.schemes.get(name)?.at ?? null }, `security scheme ${name}: ${schemeText(ctx.base, name)} → ${schemeText(ctx.head, name)}`);
    }
  }
}

function byStatus(responses: Map<string, Resp>, test: (status: string) => boolean): string[] {
  return [...responses.keys()].filter(test).sort();
}

const isSuccess = (s: string) => /^2/.test(s);
const isError = (s: string) => /^[45]/.test(s) || s === 'DEFAULT';

function compareOperation(ctx: Context, b: Op, h: Op): void {
  const scope: Scope = { operation: b.key, endpoint: endpoint(b), touches: operationTouches(b) };
  const add = (id: string, where: { base: string | null; head: string | null; field?: string }, message: string, extra: string[] = []) => ctx.collector.add(id, scope, where, message, extra);
  const seen = new Set<string>();
  if (b.method !== h.method) add('operation-method-changed', { base: b.pointer, head: h.pointer }, `method ${b.method.toUpperCase()} → ${h.method.toUpperCase()}`);
  if (pathShape(b.path) !== pathShape(h.path)) add('operation-path-changed', { base: b.pointer, head: h.pointer }, `path ${b.path} → ${h.path}`);
  if (b.client && h.client && (b.client.resource !== h.client.resource || b.client.method !== h.client.method || b.client.waiter !== h.client.waiter)) {
    add('client-method-renamed', { base: `${b.pointer}/x-client`, head: `${h.pointer}/x-client` }, `client method ${operationTouches(b).join(', ')} → ${operationTouches(h).join(', ')}`, operationTouches(h));
  }
  if (!b.deprecated && h.deprecated) add('operation-deprecated', { base: b.pointer, head: `${h.pointer}/deprecated` }, `${endpoint(h)} is deprecated${h.sunset ? `, with sunset date ${h.sunset}` : ''}`);

  // Parameters.
  const bQuery = queryTypeName(ctx.base, b);
  const hQuery = queryTypeName(ctx.head, h);
  const paramTouch = (p: Param, q: string | null) => (p.in === 'query' && q ? [`type ${q}`] : []);
  const paginated = isPage(ctx.comparer, 'base', jsonMedia(firstSuccess(b)?.content ?? new Map())) && isPage(ctx.comparer, 'head', jsonMedia(firstSuccess(h)?.content ?? new Map()));
  for (const [key, hp] of h.params) {
    const bp = b.params.get(key);
    const label = `${hp.in} parameter \`${hp.name}\``;
    if (!bp) {
      if (hp.in === 'path') continue;
      const id = hp.required ? (hp.in === 'header' ? 'request-header-added-required' : 'request-parameter-added-required') : 'request-parameter-added';
      add(id, { base: null, head: hp.at, field: `${hp.in} ${hp.name}` }, `new ${hp.required ? 'required' : 'optional'} ${label}`, paramTouch(hp, hQuery));
      continue;
    }
    const where = { base: bp.at, head: hp.at, field: `${hp.in} ${hp.name}` };
    if (!bp.required && hp.required) add(hp.in === 'header' ? 'request-header-became-required' : 'request-parameter-became-required', where, `${label} is now required`, paramTouch(hp, hQuery));
    if (canonical(bp.default) !== canonical(hp.default)) {
      const pageSize = paginated && hp.in === 'query' && PAGE_SIZE.test(hp.name);
      const show = (v: unknown) => (v === undefined ? '(none)' : canonical(v));
      add(pageSize ? 'pagination-default-per-page-changed' : 'request-parameter-default-changed', where, `default of ${label} ${show(bp.default)} → ${show(hp.default)}`, paramTouch(hp, hQuery));
    }
    // A query value is text on the wire (`?per_page=20`): a type that becomes `string` still accepts what was sent.
    const query = hp.in === 'query' && bp.in === 'query';
    if (bp.schema && hp.schema) compareRoot(ctx, scope, 'request', bp.schema, hp.schema, `${hp.in} ${hp.name}`, seen, { parameter: true, ...(query ? { loose: true, textBecause: 'a query value' } : {}), ...(hp.in === 'query' && hQuery ? { typeName: hQuery } : {}) });
  }
  for (const [key, bp] of b.params) {
    if (!h.params.has(key) && bp.in !== 'path') add('request-parameter-removed', { base: bp.at, head: null, field: `${bp.in} ${bp.name}` }, `${bp.in} parameter \`${bp.name}\` removed`, paramTouch(bp, bQuery));
  }

  // Request body.
  if (h.body && h.body.required && (!b.body || !b.body.required)) add('request-body-became-required', { base: b.body?.at ?? null, head: h.body.at }, b.body ? 'the request body is now required' : 'a required request body was added');
  if (b.body && !h.body) add('request-body-removed', { base: b.body.at, head: null }, 'the request body is no longer documented');
  if (b.body && h.body) compareContent(ctx, scope, 'request', b.body.content, h.body.content, { base: b.body.at, head: h.body.at }, seen);

  // Success responses: the same statuses compared; a success status gone is a change of status.
  const bOk = byStatus(b.responses, isSuccess);
  const hOk = byStatus(h.responses, isSuccess);
  const kept = bOk.filter((s) => hOk.includes(s));
  if (kept.length === 0 && bOk.length > 0 && hOk.length > 0) {
    const [bs, hs] = [b.responses.get(bOk[0]!)!, h.responses.get(hOk[0]!)!];
    add('response-success-status-changed', { base: bs.at, head: hs.at }, `success status ${bOk.join(', ')} → ${hOk.join(', ')}`);
    compareResponse(ctx, scope, bs, hs, seen, true);
  } else {
    for (const s of bOk) {
      if (!hOk.includes(s)) add('response-success-status-changed', { base: b.responses.get(s)!.at, head: null, field: s }, `success status ${s} is no longer documented (still: ${kept.join(', ')})`);
      else compareResponse(ctx, scope, b.responses.get(s)!, h.responses.get(s)!, seen, true);
    }
    if (bOk.length > 0) for (const s of hOk) if (!bOk.includes(s)) add('response-success-status-added', { base: null, head: h.responses.get(s)!.at, field: s }, `success status ${s} documented`);
  }

  // Error responses: every documented 4xx/5xx status, range (`5XX`) and `default`.
  const bErr = byStatus(b.responses, isError);
  const hErr = byStatus(h.responses, isError);
  const statusText = (s: string) => (s === 'DEFAULT' ? 'default' : s);
  for (const s of bErr) {
    const br = b.responses.get(s)!;
    const hr = h.responses.get(s);
    if (!hr) add('response-error-status-removed', { base: br.at, head: null, field: statusText(s) }, `error status ${statusText(s)} is no longer documented`);
    else compareResponse(ctx, scope, br, hr, seen, false);
  }
  for (const s of hErr) if (!b.responses.has(s)) add('response-error-status-added', { base: null, head: h.responses.get(s)!.at, field: statusText(s) }, `error status ${statusText(s)} documented`);
  const bCodes = errorCodes(b);
  const hCodes = errorCodes(h);
  for (const [code, at] of bCodes) if (!hCodes.has(code)) add('response-error-code-removed', { base: at, head: null, field: code }, `the error examples no longer show code \`${code}\``);
  for (const [code, at] of hCodes) if (!bCodes.has(code)) add('response-error-code-added', { base: null, head: at, field: code }, `the error examples now show code \`${code}\``);

  compareSecurity(ctx, scope, b, h);
}

function firstSuccess(op: Op): Resp | undefined {
  const s = byStatus(op.responses, isSuccess)[0];
  return s ? op.responses.get(s) : undefined;
}

/** An operation gone: breaking, unless it was deprecated and its sunset date (if it announced one) has passed. */
function removed(ctx: Context, b: Op, scope: Scope): void {
  const name = `${endpoint(b)}${b.operationId ? ` (${b.operationId})` : ''}`;
  const where = { base: b.pointer, head: null };
  if (!b.deprecated) return ctx.collector.add('operation-removed', scope, where, `${name} removed`);
  const sunset = b.sunset === null ? Number.NaN : Date.parse(b.sunset);
  if (Number.isNaN(sunset)) return ctx.collector.add('deprecated-operation-removed', scope, where, `${name}, deprecated without a sunset date, removed`);
  if (sunset > Date.parse(ctx.today)) return ctx.collector.add('operation-removed-before-sunset', scope, where, `${name} removed before its sunset date ${b.sunset} (judged on ${ctx.today})`);
  ctx.collector.add('deprecated-operation-removed', scope, where, `${name}, deprecated with sunset date ${b.sunset}, removed`);
}

export function compareOperations(ctx: Context): void {
  const { base, head, collector } = ctx;
  const route = (op: Op) => `${op.method} ${pathShape(op.path)}`;
  const headByRoute = new Map(head.operations.map((op) => [route(op), op]));
  const headById = new Map(head.operations.filter((op) => op.operationId).map((op) => [op.operationId!, op]));
  const matchedHead = new Set<Op>();
  const pairs: Array<[Op, Op]> = [];
  const unmatched: Op[] = [];
  // What a client calls is the method and path: that pairs operations first; an id that moved pairs the rest.
  for (const b of base.operations) {
    const h = headByRoute.get(route(b));
    if (h && !matchedHead.has(h)) {
      pairs.push([b, h]);
      matchedHead.add(h);
    } else unmatched.push(b);
  }
  for (const b of unmatched) {
    const h = b.operationId ? headById.get(b.operationId) : undefined;
    const scope: Scope = { operation: b.key, endpoint: endpoint(b), touches: operationTouches(b) };
    if (h && !matchedHead.has(h)) {
      pairs.push([b, h]);
      matchedHead.add(h);
    } else removed(ctx, b, scope);
  }
  for (const [b, h] of pairs) {
    if (b.operationId && h.operationId && b.operationId !== h.operationId) {
      const scope: Scope = { operation: b.key, endpoint: endpoint(b), touches: operationTouches(b) };
      collector.add('operation-id-changed', scope, { base: `${b.pointer}/operationId`, head: `${h.pointer}/operationId` }, `operationId ${b.operationId} → ${h.operationId}${base.toolkit ? ` (generated \`operations['${b.operationId}']\` is renamed)` : ''}`, base.toolkit ? [`operations['${b.operationId}']`] : []);
    }
  }
  for (const h of head.operations) {
    if (!matchedHead.has(h)) collector.add('operation-added', { operation: h.key, endpoint: endpoint(h), touches: operationTouches(h) }, { base: null, head: h.pointer }, `${endpoint(h)}${h.operationId ? ` (${h.operationId})` : ''} added`);
  }
  for (const [b, h] of pairs) compareOperation(ctx, b, h);
}

