/** Walks the operations of both sides: identity, parameters, request body, responses, errors, security. */
import type { ApiModel, JsonObject, OperationModel, ParameterModel } from '../model/index.js';
import type { Collector, Scope } from './change.js';
import { compareSchemas, resolveRef } from './schema.js';
import { operationTouches, queryTypeName } from './touches.js';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const PAGE_SIZE = /^(per_?page|page_?size|limit)$/i;

function endpoint(op: OperationModel): string {
  return `${op.method.toUpperCase()} ${op.path}`;
}

/** The path with parameter names blanked, so renaming `{id}` to `{uuid}` is not a path change. */
function pathShape(route: string): string {
  return route.replace(/\{[^}]+\}/g, '{}');
}

function paramKey(p: ParameterModel): string {
  return `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
}

function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  return JSON.stringify(value);
}

/** The raw operation object of `op` in `doc`. */
function rawOp(doc: JsonObject, op: OperationModel): JsonObject {
  const item = resolveRef(doc, isObject(doc.paths) ? doc.paths[op.path] : undefined, '#').node;
  return isObject(item) && isObject(item[op.method]) ? (item[op.method] as JsonObject) : {};
}

/** Error codes an error response documents in its examples (`error.code`). */
function errorCodes(doc: JsonObject, op: OperationModel): Map<string, string> {
  const codes = new Map<string, string>();
  const raw = rawOp(doc, op);
  const all = isObject(raw.responses) ? raw.responses : {};
  for (const status of Object.keys(all).sort()) {
    if (!/^[45]/.test(status) && status !== 'default') continue;
    const r = resolveRef(doc, all[status], `${op.pointer}/responses/${status}`);
    const content = isObject(r.node) && isObject(r.node.content) ? r.node.content : {};
    const json = isObject(content['application/json']) ? content['application/json'] : {};
    const examples: unknown[] = [];
    if (json.example !== undefined) examples.push(json.example);
    if (isObject(json.examples)) for (const e of Object.values(json.examples)) {
      const ex = resolveRef(doc, e, '#').node;
      if (isObject(ex)) examples.push(ex.value);
    }
    for (const ex of examples) {
      const code = isObject(ex) && isObject(ex.error) ? ex.error.code : undefined;
      if (typeof code === 'string' && !codes.has(code)) codes.set(code, `${r.at}/content/application~1json`);
    }
  }
  return codes;
}

function schemeOf(doc: JsonObject, name: string): string {
  const components = isObject(doc.components) && isObject(doc.components.securitySchemes) ? doc.components.securitySchemes : {};
  const s = resolveRef(doc, components[name], '#').node;
  if (!isObject(s)) return 'missing';
  return canonical({ type: s.type, scheme: typeof s.scheme === 'string' ? s.scheme.toLowerCase() : s.scheme, in: s.in, name: s.name });
}

function schemesUsed(doc: JsonObject, op: OperationModel): Map<string, string> {
  const raw = rawOp(doc, op);
  const security = Array.isArray(raw.security) ? raw.security : Array.isArray(doc.security) ? doc.security : [];
  const names = new Set(security.filter(isObject).flatMap((r) => Object.keys(r)));
  return new Map([...names].sort().map((n) => [n, schemeOf(doc, n)]));
}

export function compareOperations(base: ApiModel, head: ApiModel, collector: Collector): void {
  const headById = new Map(head.operations.map((op) => [op.operationId, op]));
  const headByRoute = new Map(head.operations.map((op) => [`${op.method} ${pathShape(op.path)}`, op]));
  const matchedHead = new Set<string>();
  const pairs: Array<[OperationModel, OperationModel]> = [];
  for (const b of base.operations) {
    const byId = headById.get(b.operationId);
    const byRoute = headByRoute.get(`${b.method} ${pathShape(b.path)}`);
    const scope: Scope = { operation: b.operationId, endpoint: endpoint(b), touches: operationTouches(b) };
    if (byId) {
      pairs.push([b, byId]);
      matchedHead.add(byId.operationId);
    } else if (byRoute && !base.operations.some((o) => o.operationId === byRoute.operationId)) {
      pairs.push([b, byRoute]);
      matchedHead.add(byRoute.operationId);
      collector.add('operation-id-changed', scope, { base: `${b.pointer}/operationId`, head: `${byRoute.pointer}/operationId` }, `operationId ${b.operationId} → ${byRoute.operationId} (generated \`operations['${b.operationId}']\` is renamed)`, [`operations['${b.operationId}']`]);
    } else {
      collector.add('operation-removed', scope, { base: b.pointer, head: null }, `${endpoint(b)} (${b.operationId}) removed`);
    }
  }
  for (const h of head.operations) {
    if (!matchedHead.has(h.operationId)) {
      collector.add('operation-added', { operation: h.operationId, endpoint: endpoint(h), touches: operationTouches(h) }, { base: null, head: h.pointer }, `${endpoint(h)} (${h.operationId}) added`);
    }
  }
  for (const [b, h] of pairs) compareOperation(base, head, b, h, collector);
}

function compareOperation(base: ApiModel, head: ApiModel, b: OperationModel, h: OperationModel, collector: Collector): void {
  const scope: Scope = { operation: b.operationId, endpoint: endpoint(b), touches: operationTouches(b) };
  const add = (id: string, where: { base: string | null; head: string | null; field?: string }, message: string, extra: string[] = []) => collector.add(id, scope, where, message, extra);
  if (b.method !== h.method) add('operation-method-changed', { base: b.pointer, head: h.pointer }, `method ${b.method.toUpperCase()} → ${h.method.toUpperCase()}`);
  if (pathShape(b.path) !== pathShape(h.path)) add('operation-path-changed', { base: b.pointer, head: h.pointer }, `path ${b.path} → ${h.path}`);
  if (b.resource !== h.resource || b.methodName !== h.methodName || b.waiter !== h.waiter) {
    add('client-method-renamed', { base: `${b.pointer}/x-client`, head: `${h.pointer}/x-client` }, `client method ${operationTouches(b).join(', ')} → ${operationTouches(h).join(', ')}`, operationTouches(h));
  }
  const bRaw = rawOp(base.document, b);
  const hRaw = rawOp(head.document, h);
  if (bRaw.deprecated !== true && hRaw.deprecated === true) add('operation-deprecated', { base: b.pointer, head: `${h.pointer}/deprecated` }, `${endpoint(h)} is deprecated`);

  // Parameters.
  const walk = (polarity: 'request' | 'response') => ({ collector, scope, polarity, baseDoc: base.document, headDoc: head.document });
  const bParams = new Map([...b.pathParams, ...b.queryParams, ...b.headerParams].map((p) => [paramKey(p), p]));
  const hParams = new Map([...h.pathParams, ...h.queryParams, ...h.headerParams].map((p) => [paramKey(p), p]));
  const bQuery = queryTypeName(b);
  const hQuery = queryTypeName(h);
  const paramTouch = (p: ParameterModel, q: string | null) => (p.in === 'query' && q ? [`type ${q}`] : []);
  for (const [key, hp] of hParams) {
    const bp = bParams.get(key);
    const label = `${hp.in} parameter \`${hp.name}\``;
    if (!bp) {
      if (hp.in === 'path') continue;
      const id = hp.required ? (hp.in === 'header' ? 'request-header-added-required' : 'request-parameter-added-required') : 'request-parameter-added';
      add(id, { base: null, head: hp.pointer, field: `${hp.in} ${hp.name}` }, `new ${hp.required ? 'required' : 'optional'} ${label}`, paramTouch(hp, hQuery));
      continue;
    }
    const where = { base: bp.pointer, head: hp.pointer, field: `${hp.in} ${hp.name}` };
    if (!bp.required && hp.required) add(hp.in === 'header' ? 'request-header-became-required' : 'request-parameter-became-required', where, `${label} is now required`, paramTouch(hp, hQuery));
    const bd = (bp.schema as JsonObject).default;
    const hd = (hp.schema as JsonObject).default;
    if (canonical(bd) !== canonical(hd)) {
      const pageSize = b.paginated && h.paginated && hp.in === 'query' && PAGE_SIZE.test(hp.name);
      add(pageSize ? 'pagination-default-per-page-changed' : 'request-parameter-default-changed', where, `default of ${label} ${canonical(bd) ?? '(none)'} → ${canonical(hd) ?? '(none)'}`, paramTouch(hp, hQuery));
    }
    compareSchemas(walk('request'), [{ node: bp.schema, at: `${bp.pointer}/schema` }], [{ node: hp.schema, at: `${hp.pointer}/schema` }], `${hp.in} ${hp.name}`, new Set(), hp.in === 'query' && hQuery ? hQuery : undefined);
  }
  for (const [key, bp] of bParams) {
    if (!hParams.has(key) && bp.in !== 'path') add('request-parameter-removed', { base: bp.pointer, head: null, field: `${bp.in} ${bp.name}` }, `${bp.in} parameter \`${bp.name}\` removed`, paramTouch(bp, bQuery));
  }

  // Request body.
  const bBody = b.requestBody;
  const hBody = h.requestBody;
  if (hBody && hBody.required && (!bBody || !bBody.required)) add('request-body-became-required', { base: bBody ? `${b.pointer}/requestBody` : null, head: `${h.pointer}/requestBody` }, bBody ? 'the request body is now required' : 'a required request body was added');
  if (bBody && !hBody) add('request-body-removed', { base: `${b.pointer}/requestBody`, head: null }, 'the request body is no longer documented');
  if (bBody && hBody) {
    const at = (doc: JsonObject, op: OperationModel) => `${resolveRef(doc, rawOp(doc, op).requestBody, `${op.pointer}/requestBody`).at}/content/application~1json/schema`;
    compareSchemas(walk('request'), [{ node: bBody.schema, at: at(base.document, b) }], [{ node: hBody.schema, at: at(head.document, h) }], '');
  }

  // Success response.
  const bs = b.success;
  const hs = h.success;
  const respAt = (doc: JsonObject, op: OperationModel, status: number) => {
    const responses = rawOp(doc, op).responses;
    return resolveRef(doc, isObject(responses) ? responses[String(status)] : undefined, `${op.pointer}/responses/${status}`).at;
  };
  const bsAt = respAt(base.document, b, bs.status);
  const hsAt = respAt(head.document, h, hs.status);
  if (bs.status !== hs.status) add('response-success-status-changed', { base: bsAt, head: hsAt }, `success status ${bs.status} → ${hs.status}`);
  if ((bs.kind === 'page') !== (hs.kind === 'page')) {
    add('pagination-envelope-changed', { base: bsAt, head: hsAt }, hs.kind === 'page' ? 'the list is now paginated (`{ data, meta, links }`)' : 'the response is no longer a paginated `{ data, meta, links }` envelope');
  } else if (bs.kind !== hs.kind || (bs.type && hs.type && bs.type.array !== hs.type.array)) {
    add('response-body-changed', { base: bsAt, head: hsAt }, `success body ${bs.kind}${bs.type?.array ? '[]' : ''} → ${hs.kind}${hs.type?.array ? '[]' : ''}`);
  }
  if (bs.schema && hs.schema) compareSchemas(walk('response'), [{ node: bs.schema, at: `${bsAt}/content/application~1json/schema` }], [{ node: hs.schema, at: `${hsAt}/content/application~1json/schema` }], '');

  // Error responses: every documented 4xx/5xx status, range (`5XX`) and `default`.
  const errorKeys = (doc: JsonObject, op: OperationModel) => {
    const responses = rawOp(doc, op).responses;
    return Object.keys(isObject(responses) ? responses : {}).filter((k) => /^[45]/.test(k) || k === 'default').sort();
  };
  const jsonSchemaOf = (doc: JsonObject, op: OperationModel, status: string) => {
    const responses = rawOp(doc, op).responses;
    const r = resolveRef(doc, isObject(responses) ? responses[status] : undefined, `${op.pointer}/responses/${status}`);
    const content = isObject(r.node) && isObject(r.node.content) ? r.node.content : {};
    const json = isObject(content['application/json']) ? content['application/json'] : null;
    return { at: r.at, schema: json && json.schema !== undefined ? { node: json.schema, at: `${r.at}/content/application~1json/schema` } : null };
  };
  const bErrors = errorKeys(base.document, b);
  const hErrors = errorKeys(head.document, h);
  for (const status of bErrors) {
    const be = jsonSchemaOf(base.document, b, status);
    if (!hErrors.includes(status)) {
      add('response-error-status-removed', { base: be.at, head: null, field: status }, `error status ${status} is no longer documented`);
      continue;
    }
    const he = jsonSchemaOf(head.document, h, status);
    if (be.schema && he.schema) compareSchemas(walk('response'), [be.schema], [he.schema], '');
  }
  for (const status of hErrors) {
    if (!bErrors.includes(status)) add('response-error-status-added', { base: null, head: jsonSchemaOf(head.document, h, status).at, field: status }, `error status ${status} documented`);
  }
  const bCodes = errorCodes(base.document, b);
  const hCodes = errorCodes(head.document, h);
  for (const [code, at] of bCodes) if (!hCodes.has(code)) add('response-error-code-removed', { base: at, head: null, field: code }, `error code ${code} is no longer documented`);
  for (const [code, at] of hCodes) if (!bCodes.has(code)) add('response-error-code-added', { base: null, head: at, field: code }, `error code ${code} documented`);

  // Security.
  const covered = (alts: string[][], need: string[]) => alts.some((alt) => alt.every((a) => need.includes(a)));
  const lost = b.abilities.filter((alt) => !covered(h.abilities, alt));
  const gained = h.abilities.filter((alt) => !covered(b.abilities, alt));
  const text = (alts: string[][]) => alts.map((a) => (a.length ? a.join(' + ') : 'any token')).join(' | ');
  const secAt = (op: OperationModel, doc: JsonObject) => (rawOp(doc, op).security !== undefined ? `${op.pointer}/security` : '#/security');
  if (lost.length) add('security-ability-changed', { base: secAt(b, base.document), head: secAt(h, head.document) }, `abilities ${text(b.abilities)} → ${text(h.abilities)}: a token with ${text(lost)} is refused`);
  else if (gained.length) add('security-ability-relaxed', { base: secAt(b, base.document), head: secAt(h, head.document) }, `abilities ${text(b.abilities)} → ${text(h.abilities)}`);
  const bSchemes = schemesUsed(base.document, b);
  const hSchemes = schemesUsed(head.document, h);
  if (canonical([...bSchemes.values()].sort()) !== canonical([...hSchemes.values()].sort())) {
    add('security-scheme-changed', { base: secAt(b, base.document), head: secAt(h, head.document) }, `security schemes ${[...bSchemes.keys()].join(', ') || '(none)'} → ${[...hSchemes.keys()].join(', ') || '(none)'}`);
  }
}
