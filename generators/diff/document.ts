/**
 * One side of a diff read as plain OpenAPI 3.0 or 3.1 (any document, not only this toolkit's dialect): its
 * operations, with parameters merged from the path item, request body and responses by media type, its webhooks
 * (`webhooks`, or 3.0's `x-webhooks`), and the effective security of each operation. Only the shapes the diff reads
 * are checked, each problem with its JSON pointer; schemas are read leniently (schema.ts).
 * The toolkit's conventions (`x-client`) are kept when present, so changes can be named in generated-code terms.
 */
import { SpecError, SpecErrors, type JsonObject } from '../model/index.js';

export type { JsonObject };

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON pointer token. */
export function token(t: string): string {
  return t.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** A JSON value as one canonical string (object keys sorted), for equality. */
export function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isObject(value)) return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
  return value === undefined ? 'undefined' : JSON.stringify(value);
}

const SCHEMA_REF = /^#\/components\/schemas\/([^/]+)$/;

/** The node at a local pointer (`#/a/b`), or undefined. */
export function at(doc: JsonObject, pointer: string): unknown {
  let target: unknown = doc;
  for (const raw of pointer.slice(2).split('/')) {
    if (raw === '' && pointer.length <= 2) break;
    const t = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    target = isObject(target) ? target[t] : Array.isArray(target) ? target[Number(t)] : undefined;
  }
  return target;
}

/** Follows a local `$ref` chain; returns the node, its pointer and the component schema name it came through. */
export function resolveRef(doc: JsonObject, node: unknown, where: string): { node: unknown; at: string; name?: string } {
  let current = node;
  let pointer = where;
  let name: string | undefined;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string' && hops < 64; hops += 1) {
    const ref = current.$ref;
    if (!ref.startsWith('#/')) break;
    const m = SCHEMA_REF.exec(ref);
    if (m) name = m[1]!.replace(/~1/g, '/').replace(/~0/g, '~');
    current = at(doc, ref);
    pointer = ref;
  }
  return { node: current, at: pointer, ...(name ? { name } : {}) };
}

/** A schema as written somewhere: the node and its pointer. */
export interface Sub {
  node: unknown;
  at: string;
}

export interface Example {
  at: string;
  value: unknown;
}

export interface Media {
  type: string;
  at: string;
  schema: Sub | null;
  examples: Example[];
}

export interface Param {
  name: string;
  in: string;
  required: boolean;
  at: string;
  schema: Sub | null;
  default: unknown;
  deprecated: boolean;
}

export interface Header {
  name: string;
  at: string;
  required: boolean;
  schema: Sub | null;
  /** The header's `example`, or its schema's `example`, `default` or `const`: what a `Sunset` header announces. */
  sample: unknown;
}

export interface Link {
  name: string;
  at: string;
  node: JsonObject;
}

export interface Resp {
  status: string;
  at: string;
  headers: Map<string, Header>;
  content: Map<string, Media>;
  links: Map<string, Link>;
}

export interface Body {
  at: string;
  required: boolean;
  content: Map<string, Media>;
}

/** One security alternative: every scheme it names and every scope (ability) it asks for. */
export interface Alternative {
  schemes: string[];
  scopes: string[];
}

export interface Op {
  /** operationId, or `METHOD /path` when there is none. */
  key: string;
  operationId: string | null;
  method: string;
  path: string;
  pointer: string;
  deprecated: boolean;
  /** The sunset date it announces (`x-sunset`, or a documented `Sunset` response header's example or default), as written. */
  sunset: string | null;
  params: Map<string, Param>;
  body: Body | null;
  responses: Map<string, Resp>;
  security: { at: string; alternatives: Alternative[] };
  /** `x-client`, when the toolkit's conventions are used. */
  client: { resource: string | null; method: string; waiter: string | null } | null;
}

export interface Event {
  name: string;
  pointer: string;
  params: Map<string, Param>;
  body: Body | null;
}

export interface DiffDoc {
  /** The file or `rev:path` errors name. */
  file: string;
  document: JsonObject;
  version: string;
  /** The document follows this toolkit's conventions (`x-client` on its operations). */
  toolkit: boolean;
  operations: Op[];
  events: Event[];
  /** Security schemes by name, as written (refs followed). */
  schemes: Map<string, { at: string; node: JsonObject }>;
}

/** Media types without parameters, lower case: `application/json; charset=utf-8` is `application/json`. */
export function mediaKey(type: string): string {
  return type.split(';')[0]!.trim().toLowerCase();
}

export function isJsonMedia(type: string): boolean {
  return /^application\/(.+\+)?json$/.test(type) || type === '*/*' || type === 'application/*';
}

export function paramKey(p: { in: string; name: string }): string {
  return `${p.in}:${p.in === 'header' ? p.name.toLowerCase() : p.name}`;
}

class Reader {
  readonly problems: SpecError[] = [];
  constructor(readonly file: string, readonly doc: JsonObject) {}

  fail(pointer: string, reason: string): void {
    if (this.problems.length < 100) this.problems.push(new SpecError(this.file, pointer, reason));
  }

  /** A `$ref`'d or inline object, or null (with a problem when something else is there). */
  object(node: unknown, where: string, what: string): { node: JsonObject; at: string } | null {
    const r = resolveRef(this.doc, node, where);
    if (isObject(r.node)) return { node: r.node, at: r.at };
    if (isObject(node) && typeof node.$ref === 'string') this.fail(where, `$ref ${JSON.stringify(node.$ref)} points at nothing in the bundled document`);
    else this.fail(where, `${what} must be an object`);
    return null;
  }

  examples(media: JsonObject, where: string): Example[] {
    const out: Example[] = [];
    if (media.example !== undefined) out.push({ at: `${where}/example`, value: media.example });
    if (isObject(media.examples)) {
      for (const [name, raw] of Object.entries(media.examples)) {
        const r = resolveRef(this.doc, raw, `${where}/examples/${token(name)}`);
        if (isObject(r.node) && r.node.value !== undefined) out.push({ at: `${r.at}/value`, value: r.node.value });
      }
    }
    return out;
  }

  content(node: unknown, where: string): Map<string, Media> {
    const out = new Map<string, Media>();
    if (node === undefined || node === null) return out;
    if (!isObject(node)) {
      this.fail(where, '`content` must be an object of media types');
      return out;
    }
    for (const [type, raw] of Object.entries(node)) {
      const mAt = `${where}/${token(type)}`;
      const media = this.object(raw, mAt, 'a media type object');
      if (!media) continue;
      const key = mediaKey(type);
      if (!out.has(key)) out.set(key, { type, at: media.at, schema: media.node.schema === undefined ? null : { node: media.node.schema, at: `${media.at}/schema` }, examples: this.examples(media.node, media.at) });
    }
    return out;
  }

  params(lists: Array<{ node: unknown; at: string }>): Map<string, Param> {
    const out = new Map<string, Param>();
    for (const list of lists) {
      if (list.node === undefined || list.node === null) continue;
      if (!Array.isArray(list.node)) {
        this.fail(list.at, '`parameters` must be a list');
        continue;
      }
      list.node.forEach((raw, i) => {
        const p = this.object(raw, `${list.at}/${i}`, 'a parameter');
        if (!p) return;
        if (typeof p.node.name !== 'string' || typeof p.node.in !== 'string') return this.fail(p.at, 'a parameter needs a string `name` and `in`');
        let schema: Sub | null = p.node.schema === undefined ? null : { node: p.node.schema, at: `${p.at}/schema` };
        if (!schema && isObject(p.node.content)) {
          const first = [...this.content(p.node.content, `${p.at}/content`).values()][0];
          schema = first?.schema ?? null;
        }
        const schemaNode = schema ? resolveRef(this.doc, schema.node, schema.at).node : undefined;
        const param: Param = {
          name: p.node.name,
          in: p.node.in,
          required: p.node.required === true || p.node.in === 'path',
          at: p.at,
          schema,
          default: isObject(schemaNode) ? schemaNode.default : undefined,
          deprecated: p.node.deprecated === true,
        };
        // An operation's parameter replaces the path item's of the same name and location.
        out.set(paramKey(param), param);
      });
    }
    return out;
  }

  body(node: unknown, where: string): Body | null {
    if (node === undefined) return null;
    const b = this.object(node, where, '`requestBody`');
    if (!b) return null;
    return { at: b.at, required: b.node.required === true, content: this.content(b.node.content, `${b.at}/content`) };
  }

  response(status: string, node: unknown, where: string): Resp | null {
    const r = this.object(node, where, `response ${status}`);
    if (!r) return null;
    const headers = new Map<string, Header>();
    if (r.node.headers !== undefined) {
      if (!isObject(r.node.headers)) this.fail(`${r.at}/headers`, '`headers` must be an object');
      else {
        for (const [name, raw] of Object.entries(r.node.headers)) {
          const h = this.object(raw, `${r.at}/headers/${token(name)}`, `header ${name}`);
          if (!h) continue;
          let schema: Sub | null = h.node.schema === undefined ? null : { node: h.node.schema, at: `${h.at}/schema` };
          if (!schema && isObject(h.node.content)) schema = [...this.content(h.node.content, `${h.at}/content`).values()][0]?.schema ?? null;
          const s = schema ? resolveRef(this.doc, schema.node, schema.at).node : undefined;
          const sample = h.node.example ?? (isObject(s) ? (s.example ?? s.default ?? s.const ?? (Array.isArray(s.examples) ? s.examples[0] : undefined)) : undefined);
          headers.set(name.toLowerCase(), { name, at: h.at, required: h.node.required === true, schema, sample });
        }
      }
    }
    const links = new Map<string, Link>();
    if (isObject(r.node.links)) {
      for (const [name, raw] of Object.entries(r.node.links)) {
        const l = resolveRef(this.doc, raw, `${r.at}/links/${token(name)}`);
        if (isObject(l.node)) links.set(name, { name, at: l.at, node: l.node });
      }
    }
    return { status, at: r.at, headers, content: this.content(r.node.content, `${r.at}/content`), links };
  }

  alternatives(security: unknown, where: string): Alternative[] {
    if (!Array.isArray(security)) {
      this.fail(where, '`security` must be a list of requirement objects');
      return [];
    }
    return security.filter(isObject).map((req) => ({
      schemes: Object.keys(req).sort(),
      scopes: [...new Set(Object.values(req).flatMap((v) => (Array.isArray(v) ? v.map(String) : [])))].sort(),
    }));
  }

  operation(route: string, method: string, node: JsonObject, where: string, pathParams: unknown, itemAt: string): Op {
    const operationId = typeof node.operationId === 'string' ? node.operationId : null;
    const responses = new Map<string, Resp>();
    if (node.responses !== undefined && node.responses !== null && !isObject(node.responses)) this.fail(`${where}/responses`, '`responses` must be an object of status codes');
    else if (isObject(node.responses)) {
      for (const [status, raw] of Object.entries(node.responses)) {
        const r = this.response(status, raw, `${where}/responses/${token(status)}`);
        if (r) responses.set(status.toUpperCase(), r);
      }
    }
    const ownSecurity = node.security !== undefined;
    const security = ownSecurity ? node.security : this.doc.security;
    const client = isObject(node['x-client']) && typeof node['x-client'].method === 'string'
      ? { resource: typeof node['x-client'].resource === 'string' ? node['x-client'].resource : null, method: node['x-client'].method, waiter: typeof node['x-client'].waiter === 'string' ? node['x-client'].waiter : null }
      : null;
    const announced = node['x-sunset'] ?? [...responses.values()].map((r) => r.headers.get('sunset')?.sample).find((v) => v !== undefined);
    return {
      key: operationId ?? `${method.toUpperCase()} ${route}`,
      operationId,
      method,
      path: route,
      pointer: where,
      deprecated: node.deprecated === true,
      sunset: typeof announced === 'string' ? announced : announced instanceof Date ? announced.toISOString().slice(0, 10) : null,
      params: this.params([{ node: pathParams, at: `${itemAt}/parameters` }, { node: node.parameters, at: `${where}/parameters` }]),
      body: this.body(node.requestBody, `${where}/requestBody`),
      responses,
      security: { at: ownSecurity ? `${where}/security` : '#/security', alternatives: security === undefined ? [] : this.alternatives(security, ownSecurity ? `${where}/security` : '#/security') },
      client,
    };
  }

  pathItems(key: 'paths' | 'webhooks' | 'x-webhooks'): Array<{ name: string; at: string; item: JsonObject }> {
    const all = this.doc[key];
    if (all === undefined) return [];
    if (!isObject(all)) {
      this.fail(`#/${token(key)}`, `\`${key}\` must be an object`);
      return [];
    }
    const out: Array<{ name: string; at: string; item: JsonObject }> = [];
    for (const [name, raw] of Object.entries(all)) {
      const item = this.object(raw, `#/${token(key)}/${token(name)}`, 'a path item');
      if (item) out.push({ name, at: item.at, item: item.node });
    }
    return out;
  }
}

/** Reads one side; a shape the diff cannot read is a `SpecErrors` with every problem's pointer. */
export function readDocument(file: string, document: JsonObject): DiffDoc {
  const r = new Reader(file, document);
  const operations: Op[] = [];
  for (const { name: route, at: itemAt, item } of r.pathItems('paths')) {
    for (const method of HTTP_METHODS) {
      if (item[method] === undefined) continue;
      const where = `${itemAt}/${method}`;
      if (!isObject(item[method])) {
        r.fail(where, 'an operation must be an object');
        continue;
      }
      operations.push(r.operation(route, method, item[method], where, item.parameters, itemAt));
    }
  }
  const events: Event[] = [];
  for (const key of ['webhooks', 'x-webhooks'] as const) {
    for (const { name, at: itemAt, item } of r.pathItems(key)) {
      const methods = HTTP_METHODS.filter((m) => isObject(item[m]));
      for (const method of methods) {
        const node = item[method] as JsonObject;
        const where = `${itemAt}/${method}`;
        events.push({
          name: methods.length > 1 ? `${name} (${method.toUpperCase()})` : name,
          pointer: where,
          params: r.params([{ node: item.parameters, at: `${itemAt}/parameters` }, { node: node.parameters, at: `${where}/parameters` }]),
          body: r.body(node.requestBody, `${where}/requestBody`),
        });
      }
    }
  }
  const schemes = new Map<string, { at: string; node: JsonObject }>();
  const components = isObject(document.components) ? document.components : {};
  if (isObject(components.securitySchemes)) {
    for (const [name, raw] of Object.entries(components.securitySchemes)) {
      const s = resolveRef(document, raw, `#/components/securitySchemes/${token(name)}`);
      if (isObject(s.node)) schemes.set(name, { at: `#/components/securitySchemes/${token(name)}`, node: s.node });
    }
  }
  if (r.problems.length > 0) throw new SpecErrors(r.problems);
  const info = isObject(document.info) ? document.info : {};
  return {
    file,
    document,
    version: typeof info.version === 'string' ? info.version : String(info.version ?? ''),
    toolkit: operations.length > 0 && operations.some((op) => op.client !== null),
    operations,
    events,
    schemes,
  };
}

const cache = new WeakMap<JsonObject, DiffDoc>();
/** `readDocument`, once per document object. */
export function documentOf(file: string, document: JsonObject): DiffDoc {
  let doc = cache.get(document);
  if (!doc) {
    doc = readDocument(file, document);
    cache.set(document, doc);
  }
  return doc;
}
