/**
 * Builds the intermediate model from a loaded spec. Every check that a target relies on happens here, with
 * the JSON pointer of the offending node, and all problems of one pass are reported together.
 */
import path from 'node:path';
import { ASSET_ROOT, docPath } from '../core/assets.js';
import { lineComment } from '../core/escape.js';
import { SpecError, SpecErrors, pointer } from './errors.js';
import { displayPath, isRemote, loadSpec, type JsonObject, type LoadedSpec } from './load.js';
import type { ApiModel, EnumModel, EventModel, HttpMethod, OperationModel, ParameterModel, ResponseModel, SchemaModel, TypeRef } from './model.js';
import { BUNDLER_UNSAFE_KEYS, bundlerUnsafeKeyReason, enumValuesName, isWellFormed, METHOD_LOCALS, OBJECT_MEMBERS, nameProblem, PATH_KEY, queryTypeName, REF_ROOTS, resourceClassName, SCAFFOLD_NAMES, type NameRole } from './names.js';
import { compareStrings, sortBy, sortedEntries } from './sort.js';

const HTTP_METHODS: readonly HttpMethod[] = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];
const SCHEMA_REF = /^#\/components\/schemas\/([^/]+)$/;
/** Values that are data, not spec structure: a `$ref` inside them is not a reference. */
const DATA_KEYWORDS = new Set(['example', 'examples', 'default', 'const', 'enum']);

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class Builder {
  readonly problems: SpecError[] = [];
  constructor(private readonly spec: LoadedSpec, private readonly displayFile: string) {}

  fail(at: string, reason: string): void {
    this.problems.push(new SpecError(this.displayFile, at, reason));
  }

  /** Refuses a spec name that cannot serve as `role` in generated code (see names.ts); true when it can. */
  checkName(name: string, role: NameRole, at: string, what: string): boolean {
    const problem = nameProblem(name, role);
    if (problem !== null) this.fail(at, `${what}: ${problem}`);
    return problem === null;
  }

  /**
   * One walk over the document for what can be anywhere in it:
   * - every string and key is well-formed Unicode (a lone surrogate cannot be written to a file as UTF-8, and
   *   Ajv's pointer encoding throws on one when the generated server starts);
   * - no key is one the bundler cannot take ({@link BUNDLER_UNSAFE_KEYS}): the loader reports them when
   *   Redocly crashes on them, and `lint` bundles the document again;
   * - outside examples, defaults, enums, consts and `x-` extensions (data, not structure): every local `$ref`
   *   points into `components`, `paths` or `webhooks` (openapi-typescript writes a reference's first segment
   *   as a type name, so `#/x-anything/...` would become code), and no schema property or parameter is named
   *   after an `Object.prototype` member (every object literal inherits `toString`, which TypeScript then
   *   checks against the property, and code reading it from an object without it gets the inherited function).
   */
  checkDocument(document: unknown): void {
    // The walk keeps the path as tokens and builds a pointer only for a problem: building one per node (two regex
    // replaces and a concatenation each) was half of the model's time on a large spec.
    const tokens: string[] = [];
    const here = (...more: string[]): string => pointer(...tokens, ...more);
    const visit = (node: unknown, data: boolean, depth: number): void => {
      if (typeof node === 'string') {
        if (!isWellFormed(node)) this.fail(here(), 'the text is not well-formed Unicode (it holds a lone UTF-16 surrogate)');
        return;
      }
      if (typeof node !== 'object' || node === null || depth > 256) return;
      if (Array.isArray(node)) {
        for (let i = 0; i < node.length; i++) {
          tokens.push(String(i));
          visit(node[i], data, depth + 1);
          tokens.pop();
        }
        return;
      }
      const object = node as JsonObject;
      if (!data && typeof object.in === 'string' && typeof object.name === 'string' && OBJECT_MEMBERS.has(object.name)) {
        this.checkKey(object.name, here('name'), 'parameter name');
      }
      for (const key of Object.keys(object)) {
        const value = object[key];
        tokens.push(key);
        if (!isWellFormed(key)) this.fail(here(), 'the key is not well-formed Unicode (it holds a lone UTF-16 surrogate)');
        if (BUNDLER_UNSAFE_KEYS.has(key)) this.fail(here(), bundlerUnsafeKeyReason(key));
        const inData = data || DATA_KEYWORDS.has(key) || key.startsWith('x-');
        if (!inData && key === '$ref' && typeof value === 'string' && value.startsWith('#')) {
          const root = value.replace(/^#\/?/, '').split('/')[0] ?? '';
          if (!(REF_ROOTS as readonly string[]).includes(root)) {
            this.fail(here(), `$ref ${JSON.stringify(value)} points outside ${REF_ROOTS.map((r) => `#/${r}`).join(', ')}; generated types can only name what lives there`);
          }
        }
        if (!inData && key === 'properties' && isObject(value)) {
          for (const name of Object.keys(value)) if (OBJECT_MEMBERS.has(name)) this.checkKey(name, here(name), 'property name');
        }
        visit(value, inData, depth + 1);
        tokens.pop();
      }
    };
    visit(document, false, 0);
  }

  /** A property or parameter name: any string, except an `Object.prototype` member (see {@link checkDocument}). */
  checkKey(name: string, at: string, what: string): void {
    if (OBJECT_MEMBERS.has(name) && name !== '__proto__' && name !== 'then' && !BUNDLER_UNSAFE_KEYS.has(name)) {
      this.fail(at, `${what} ${JSON.stringify(name)} is a member of every JavaScript object (Object.prototype): TypeScript checks every object literal's inherited ${name} against it, and code reading it from an object without it gets the inherited one; rename it`);
    }
  }

  /** Resolves a local `$ref` chain; returns the node and the pointer it lives at. */
  resolve(node: unknown, at: string): { node: JsonObject; at: string } | null {
    let current = node;
    let where = at;
    for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops += 1) {
      const ref = current.$ref;
      if (!ref.startsWith('#/') || hops > 32) {
        this.fail(where, `cannot resolve $ref ${JSON.stringify(ref)} (only local references are supported after bundling)`);
        return null;
      }
      let target: unknown = this.spec.document;
      for (const raw of ref.slice(2).split('/')) {
        const token = raw.replace(/~1/g, '/').replace(/~0/g, '~');
        target = isObject(target) && Object.hasOwn(target, token) ? target[token] : undefined;
      }
      if (target === undefined) {
        this.fail(where, `$ref ${JSON.stringify(ref)} (resolved against ${this.displayFile}) points at nothing: the bundled document has no ${ref}`);
        return null;
      }
      current = target;
      where = ref;
    }
    return isObject(current) ? { node: current, at: where } : null;
  }

  typeRef(schema: unknown): TypeRef | null {
    if (!isObject(schema)) return null;
    if (typeof schema.$ref === 'string') {
      const match = SCHEMA_REF.exec(schema.$ref);
      return match?.[1] ? { schema: match[1], array: false } : null;
    }
    if (schema.type === 'array' && isObject(schema.items) && typeof schema.items.$ref === 'string') {
      const match = SCHEMA_REF.exec(schema.items.$ref);
      return match?.[1] ? { schema: match[1], array: true } : null;
    }
    return null;
  }

  /** Property names of a schema, following `$ref` and `allOf`. */
  propertyNames(schema: unknown, at: string, depth = 0): string[] {
    const resolved = this.resolve(schema, at);
    if (!resolved || depth > 16) return [];
    const names = new Set(Object.keys(isObject(resolved.node.properties) ? resolved.node.properties : {}));
    const parts = Array.isArray(resolved.node.allOf) ? resolved.node.allOf : [];
    parts.forEach((part, i) => {
      for (const name of this.propertyNames(part, `${resolved.at}/allOf/${i}`, depth + 1)) names.add(name);
    });
    return [...names];
  }

  parameter(raw: unknown, at: string): ParameterModel | null {
    const resolved = this.resolve(raw, at);
    if (!resolved) return null;
    const p = resolved.node;
    const location = p.in;
    if (typeof p.name !== 'string' || (location !== 'path' && location !== 'query' && location !== 'header' && location !== 'cookie')) {
      this.fail(resolved.at, 'a parameter needs a string `name` and `in` of path, query, header or cookie');
      return null;
    }
    const style = typeof p.style === 'string' ? p.style : location === 'query' || location === 'cookie' ? 'form' : 'simple';
    return {
      name: p.name,
      in: location,
      required: p.required === true,
      description: typeof p.description === 'string' ? p.description : '',
      schema: isObject(p.schema) ? p.schema : {},
      style,
      explode: typeof p.explode === 'boolean' ? p.explode : style === 'form',
      pointer: resolved.at,
    };
  }

  response(status: number, raw: unknown, at: string): ResponseModel {
    const resolved = this.resolve(raw, at);
    const node = resolved?.node ?? {};
    const content = isObject(node.content) ? node.content : {};
    const json = isObject(content['application/json']) ? content['application/json'] : null;
    const schema = json && isObject(json.schema) ? json.schema : null;
    let kind: ResponseModel['kind'] = json ? 'other' : 'none';
    let type: TypeRef | null = null;
    if (schema) {
      const body = this.resolve(schema, `${resolved?.at ?? at}/content/application~1json/schema`);
      const props = body && isObject(body.node.properties) ? body.node.properties : {};
      if ('data' in props && 'meta' in props && 'links' in props) {
        kind = 'page';
        type = this.typeRef(props.data);
      } else if ('data' in props) {
        kind = 'data';
        type = this.typeRef(props.data);
      } else if ('error' in props) {
        kind = 'error';
      }
    }
    return {
      status,
      description: typeof node.description === 'string' ? node.description : '',
      kind,
      type,
      schema,
      headers: Object.keys(isObject(node.headers) ? node.headers : {}).sort(compareStrings),
    };
  }

  operation(route: string, method: HttpMethod, op: JsonObject, pathItem: JsonObject): OperationModel | null {
    const at = pointer('paths', route, method);
    const operationId = op.operationId;
    if (typeof operationId !== 'string') {
      this.fail(`${at}/operationId`, 'every operation needs an operationId that is a valid identifier');
      return null;
    }
    // A binding: `server --scaffold` declares `export const <operationId>` in `<operationId>.ts`.
    let named = this.checkName(operationId, 'binding', `${at}/operationId`, 'operationId');
    if (named && SCAFFOLD_NAMES.includes(operationId)) {
      this.fail(`${at}/operationId`, `operationId: ${JSON.stringify(operationId)} is a name \`server --scaffold\` already declares beside the handlers`);
      named = false;
    }
    const client = op['x-client'];
    if (!isObject(client) || typeof client.method !== 'string') {
      this.fail(`${at}/x-client`, `every operation needs \`x-client: { resource?, method }\` naming its client method (\`{ resource: cards, method: freeze }\` makes \`client.cards.freeze()\`; without \`resource\` the method is on the client itself); see "Adding an endpoint" in ${docPath('generators/README.md')}`);
      return null;
    }
    named = this.checkName(client.method, 'member', `${at}/x-client/method`, '`x-client.method`') && named;
    if (client.resource !== undefined) {
      if (typeof client.resource !== 'string') {
        this.fail(`${at}/x-client/resource`, '`resource` must be an identifier such as `cards`');
        return null;
      }
      named = this.checkName(client.resource, 'member', `${at}/x-client/resource`, '`x-client.resource`') && named;
    }
    if (client.waiter !== undefined) {
      if (typeof client.waiter !== 'string') {
        this.fail(`${at}/x-client/waiter`, '`waiter` must be an identifier such as `wait`');
        return null;
      }
      named = this.checkName(client.waiter, 'member', `${at}/x-client/waiter`, '`x-client.waiter`') && named;
    }
    if (!named) return null;
    const params = new Map<string, ParameterModel>();
    const collect = (list: unknown, base: string): void => {
      if (!Array.isArray(list)) return;
      list.forEach((raw, i) => {
        const p = this.parameter(raw, `${base}/parameters/${i}`);
        if (p) params.set(`${p.in}:${p.name}`, p);
      });
    };
    collect(pathItem.parameters, pointer('paths', route));
    collect(op.parameters, at);
    const all = [...params.values()];
    const templated = route.match(/\{[^}]+\}/g) ?? [];
    for (const name of templated) {
      if (!all.some((p) => p.in === 'path' && `{${p.name}}` === name)) this.fail(at, `path parameter ${name} is not declared`);
    }
    if (new Set(templated).size !== templated.length) this.fail(pointer('paths', route), `the path names a parameter twice`);
    for (const p of all.filter((q) => q.in === 'path')) {
      // Path parameters become the generated method's leading parameters, beside `query`, `body` and `options`.
      if (!this.checkName(p.name, 'binding', `${p.pointer}/name`, 'path parameter name')) continue;
      if (METHOD_LOCALS.includes(p.name)) {
        this.fail(`${p.pointer}/name`, `path parameter name: ${JSON.stringify(p.name)} is a name the generated client method already uses (${METHOD_LOCALS.join(', ')})`);
      }
    }

    let requestBody: OperationModel['requestBody'] = null;
    if (op.requestBody !== undefined) {
      const body = this.resolve(op.requestBody, `${at}/requestBody`);
      const content = body && isObject(body.node.content) ? body.node.content : {};
      const json = isObject(content['application/json']) ? content['application/json'] : null;
      if (!json || !isObject(json.schema)) {
        this.fail(`${body?.at ?? at}/content`, 'a request body must be application/json with a schema');
      } else {
        requestBody = { required: body?.node.required === true, schema: json.schema, type: this.typeRef(json.schema) };
      }
    }

    const responses = isObject(op.responses) ? op.responses : {};
    const statuses = Object.keys(responses).filter((s) => /^[1-5][0-9][0-9]$/.test(s)).map(Number).sort((a, b) => a - b);
    const successStatus = statuses.find((s) => s >= 200 && s < 300);
    if (successStatus === undefined) {
      this.fail(`${at}/responses`, 'every operation needs a 2xx response');
      return null;
    }
    const success = this.response(successStatus, responses[String(successStatus)], `${at}/responses/${successStatus}`);
    const errors = statuses.filter((s) => s >= 400).map((s) => this.response(s, responses[String(s)], `${at}/responses/${s}`));

    const security = Array.isArray(op.security) ? op.security : Array.isArray(this.spec.document.security) ? this.spec.document.security : [];
    const abilities = security.filter(isObject).map((requirement) => {
      const roles = Object.values(requirement).flatMap((v) => (Array.isArray(v) ? v.map(String) : []));
      return [...new Set(roles)].sort(compareStrings);
    });
    const idempotencyParam = all.find((p) => p.in === 'header' && p.name.toLowerCase() === 'x-idempotency-key');
    const dataType = success.type;
    return {
      operationId,
      method,
      path: route,
      pointer: at,
      summary: typeof op.summary === 'string' ? op.summary : '',
      description: typeof op.description === 'string' ? op.description.trim() : '',
      tags: Array.isArray(op.tags) ? op.tags.map(String) : [],
      resource: typeof client.resource === 'string' ? client.resource : null,
      methodName: client.method,
      waiter: typeof client.waiter === 'string' ? client.waiter : null,
      pathParams: all.filter((p) => p.in === 'path'),
      queryParams: all.filter((p) => p.in === 'query'),
      headerParams: all.filter((p) => p.in === 'header'),
      requestBody,
      success,
      errors,
      abilities: abilities.length > 0 ? abilities : [[]],
      async: successStatus === 202 && success.kind === 'data' && (dataType?.schema === 'AcceptedOrder' || dataType?.schema === 'Order') && !dataType.array,
      paginated: success.kind === 'page',
      idempotent: idempotencyParam !== undefined,
      idempotencyHeader: idempotencyParam?.name ?? null,
    };
  }

  event(name: string, pathItem: JsonObject): EventModel | null {
    const at = pointer('webhooks', name, 'post');
    const op = isObject(pathItem.post) ? pathItem.post : null;
    if (!op) {
      this.fail(pointer('webhooks', name), 'a webhook must be a `post` operation');
      return null;
    }
    const body = this.resolve(op.requestBody, `${at}/requestBody`);
    const content = body && isObject(body.node.content) ? body.node.content : {};
    const json = isObject(content['application/json']) ? content['application/json'] : null;
    const ref = json ? this.typeRef(json.schema) : null;
    if (!json || !ref || ref.array) {
      this.fail(`${at}/requestBody`, 'a webhook body must be application/json with a $ref to a component schema');
      return null;
    }
    const eventSchema = this.resolve(json.schema, `${at}/requestBody/content/application~1json/schema`);
    // The data schema: the `data` property found through allOf, which must be a named schema.
    let dataRef: TypeRef | null = null;
    let eventConst: unknown;
    const visit = (schema: unknown, where: string, depth: number): void => {
      const r = this.resolve(schema, where);
      if (!r || depth > 16) return;
      const props = isObject(r.node.properties) ? r.node.properties : {};
      if (isObject(props.data) && this.typeRef(props.data)) dataRef = this.typeRef(props.data);
      if (isObject(props.event) && props.event.const !== undefined) eventConst = props.event.const;
      (Array.isArray(r.node.allOf) ? r.node.allOf : []).forEach((part, i) => visit(part, `${r.at}/allOf/${i}`, depth + 1));
    };
    if (eventSchema) visit(eventSchema.node, eventSchema.at, 0);
    if (eventConst !== name) {
      this.fail(eventSchema?.at ?? at, `the event schema must fix \`event\` with \`const: ${name}\` (found ${JSON.stringify(eventConst)})`);
      return null;
    }
    const data = dataRef as TypeRef | null;
    if (!data) {
      this.fail(eventSchema?.at ?? at, '`data` must be a $ref to a named component schema');
      return null;
    }
    const params = Array.isArray(op.parameters) ? op.parameters : [];
    const signature = params
      .map((raw, i) => this.parameter(raw, `${at}/parameters/${i}`))
      .find((p) => p?.in === 'header' && p.required);
    return {
      name,
      operationId: typeof op.operationId === 'string' ? op.operationId : name,
      summary: typeof op.summary === 'string' ? op.summary : '',
      description: typeof op.description === 'string' ? op.description.trim() : '',
      pointer: at,
      schemaName: ref.schema,
      dataSchemaName: data.schema,
      dataFields: this.propertyNames({ $ref: `#/components/schemas/${data.schema}` }, at).sort(compareStrings),
      signatureHeader: signature?.name ?? '',
      example: json.example ?? (isObject(json.examples) ? Object.values(json.examples).map((e) => (isObject(e) ? e.value : undefined))[0] : undefined),
    };
  }

  /**
   * Names that generated modules declare side by side must differ: schema types, enumeration value arrays and
   * query types share the types module (and every module that imports it), resource classes share the client
   * with the types it imports, root methods share the client class with the resource properties, and
   * `server --scaffold` writes one file per operationId (on file systems that ignore case, too).
   */
  checkDeclaredNames(operations: readonly OperationModel[], schemas: readonly SchemaModel[], enums: readonly EnumModel[]): void {
    const declared = new Map<string, string>(schemas.map((s) => [s.name, s.pointer]));
    const declare = (name: string, at: string, what: string): void => {
      const other = declared.get(name);
      const problem = other === undefined ? nameProblem(name, 'type') : `it is also generated for ${other}`;
      if (problem !== null) this.fail(at, `${what} ${JSON.stringify(name)}: ${problem}`);
      else declared.set(name, at);
    };
    for (const e of enums) declare(enumValuesName(e.name), pointer('components', 'schemas', e.name), 'the list of values');
    for (const op of operations) if (op.queryParams.length > 0) declare(queryTypeName(op.operationId), `${op.pointer}/operationId`, 'the query type');
    const resources = new Map<string, string>();
    for (const op of operations) if (op.resource !== null && !resources.has(op.resource)) resources.set(op.resource, `${op.pointer}/x-client/resource`);
    for (const [resource, at] of resources) declare(resourceClassName(resource), at, 'the resource class');
    for (const op of operations.filter((o) => o.resource === null)) {
      for (const [name, key] of [[op.methodName, 'method'], [op.waiter, 'waiter']] as const) {
        if (name !== null && resources.has(name)) this.fail(`${op.pointer}/x-client/${key}`, `client method ${name} would take the place of the resource \`client.${name}\` (${resources.get(name)})`);
      }
    }
    const files = new Map<string, OperationModel>();
    for (const op of operations) {
      const other = files.get(op.operationId.toLowerCase());
      if (other !== undefined && other.operationId !== op.operationId) {
        this.fail(`${op.pointer}/operationId`, `operationId ${op.operationId} differs only in case from ${other.operationId} (${other.pointer}); \`server --scaffold\` writes one file per operationId`);
      }
      files.set(op.operationId.toLowerCase(), op);
    }
  }

  build(): ApiModel {
    const doc = this.spec.document;
    const info = isObject(doc.info) ? doc.info : {};
    const operations: OperationModel[] = [];
    this.checkDocument(doc);
    for (const [route, rawItem] of sortedEntries(isObject(doc.paths) ? doc.paths : {})) {
      if (!PATH_KEY.test(route)) {
        this.fail(pointer('paths', route), `path ${JSON.stringify(route)} is not a URL path of unreserved characters (A-Z a-z 0-9 - . _ ~), %-escapes and {parameter} templates between slashes; it becomes a route and a string in generated code`);
        continue;
      }
      const item = this.resolve(rawItem, pointer('paths', route));
      if (!item) continue;
      for (const method of HTTP_METHODS) {
        const op = item.node[method];
        if (isObject(op)) {
          const model = this.operation(route, method, op, item.node);
          if (model) operations.push(model);
        }
      }
    }
    const seenIds = new Map<string, string>();
    const seenMethods = new Map<string, string>();
    for (const op of operations) {
      const id = seenIds.get(op.operationId);
      if (id) this.fail(`${op.pointer}/operationId`, `operationId ${op.operationId} is also used at ${id}`);
      seenIds.set(op.operationId, op.pointer);
      for (const name of [op.methodName, ...(op.waiter ? [op.waiter] : [])]) {
        const key = `${op.resource ?? ''}.${name}`;
        const other = seenMethods.get(key);
        if (other) this.fail(`${op.pointer}/x-client`, `client method ${key.replace(/^\./, '')} is also generated for ${other}`);
        seenMethods.set(key, op.pointer);
      }
    }

    const components = isObject(doc.components) ? doc.components : {};
    const schemas: SchemaModel[] = [];
    const enums: EnumModel[] = [];
    for (const [name, raw] of sortedEntries(isObject(components.schemas) ? components.schemas : {})) {
      const at = pointer('components', 'schemas', name);
      if (!this.checkName(name, 'type', at, 'schema name')) continue;
      if (!isObject(raw)) continue;
      const description = typeof raw.description === 'string' ? raw.description.trim() : '';
      schemas.push({ name, pointer: at, description, schema: raw });
      if (Array.isArray(raw.enum)) {
        const values = raw.enum.filter((v): v is string => typeof v === 'string');
        if (values.length !== raw.enum.length) this.fail(`${at}/enum`, 'enumerations must list strings only');
        const descriptions = isObject(raw['x-enumDescriptions']) ? raw['x-enumDescriptions'] : {};
        for (const value of values) {
          if (!Object.hasOwn(descriptions, value) || typeof descriptions[value] !== 'string') this.fail(`${at}/x-enumDescriptions`, `value ${value} has no description`);
        }
        // defineProperty: a value named `__proto__` must stay a key of the map, not become its prototype.
        const map: Record<string, string> = {};
        for (const v of values) Object.defineProperty(map, v, { value: Object.hasOwn(descriptions, v) ? String(descriptions[v]) : '', enumerable: true, writable: true, configurable: true });
        enums.push({ name, values, description, descriptions: map });
      }
    }

    this.checkDeclaredNames(operations, schemas, enums);

    const events: EventModel[] = [];
    for (const [name, raw] of sortedEntries(isObject(doc.webhooks) ? doc.webhooks : {})) {
      const item = this.resolve(raw, pointer('webhooks', name));
      const event = item ? this.event(name, item.node) : null;
      if (event) events.push(event);
    }

    if (this.problems.length > 0) throw new SpecErrors(this.problems);
    return {
      title: typeof info.title === 'string' ? info.title : 'API',
      version: typeof info.version === 'string' ? info.version : '0.0.0',
      specFile: this.spec.file,
      specName: specDisplayName(this.spec.file),
      specHash: this.spec.hash,
      document: doc,
      operations: sortBy(operations, (op) => op.operationId),
      schemas,
      enums,
      events,
    };
  }
}

/** Builds the model of an already loaded spec. */
export function buildModel(spec: LoadedSpec): ApiModel {
  return new Builder(spec, displayPath(spec.file)).build();
}

/** The name generated headers give a spec file (see {@link ApiModel.specName}). */
export function specDisplayName(file: string, cwd: string = process.cwd()): string {
  if (isRemote(file)) return displayPath(file).replace(/[\r\n\u2028\u2029]+/g, ' ');
  const inRoot = path.relative(ASSET_ROOT, file);
  const rel = !inRoot.startsWith('..') && !path.isAbsolute(inRoot) ? inRoot : path.relative(cwd, file);
  // A one-line comment: no line breaks, whatever the file is called.
  return lineComment((path.isAbsolute(rel) ? path.basename(file) : rel).split(path.sep).join('/'));
}

const models = new Map<string, ApiModel>();

/** Loads a spec file and builds its model, once per file content and process. */
export async function loadModel(specPath: string): Promise<ApiModel> {
  const spec = await loadSpec(specPath);
  const key = `${spec.file}\0${spec.hash}`;
  let model = models.get(key);
  if (!model) {
    model = buildModel(spec);
    models.set(key, model);
  }
  return model;
}
