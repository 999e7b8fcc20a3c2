/**
 * `gen-card-api trigger --fixture <file>`: a scenario of public API and control API calls, with references from a
 * step to an earlier step's answer (`${issue.data.related_card_uuid}`). The whole file is checked before the first
 * call: its shape (`fixtures/fixture.schema.json`), each operation (in the spec or the control document), each
 * step's parameters and body against that operation, and each reference (to a step that exists and comes
 * earlier, along a path the referenced answer's schema declares). Every problem is reported, with its step.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { resolveTarget, SandboxApi, waitForOrder } from './api.js';
import type { Docs, Operation, RequestInput } from './docs.js';
import { loadDocs } from './docs.js';
import { CliError, type Output } from './errors.js';
import { listDeliveries, newestDeliveryId } from './deliveries.js';
import { suggest } from './suggest.js';

type Json = Record<string, any>;

/** One step of a fixture file. */
export interface FixtureStep {
  id: string;
  call: string;
  description?: string;
  path?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
  wait?: boolean;
}

export interface Fixture {
  description?: string;
  steps: FixtureStep[];
}

/** Largest fixture file read, and deepest nesting walked: a fixture is input, bounded like any other. */
const MAX_FIXTURE_BYTES = 1024 * 1024;
const MAX_DEPTH = 64;

/** The folder of fixtures that ships with the CLI: `fixtures/` beside the package.json of gen-card-api, from src/ or dist/. */
export function bundledFixturesDir(from = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest) && (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'gen-card-api') return path.join(dir, 'fixtures');
    if (path.dirname(dir) === dir) throw new Error(`gen-card-api: cannot find its fixtures near ${from}; the installation is incomplete`);
  }
}

/** A fixture argument as a file: a path that exists, else the name of a bundled fixture (`chargeback`). */
export function resolveFixturePath(argument: string): string {
  if (existsSync(argument)) return argument;
  const bundled = bundledFixturesDir();
  const names = existsSync(bundled) ? readdirJson(bundled) : [];
  const name = argument.replace(/\.json$/, '');
  if (!argument.includes('/') && !argument.includes(path.sep) && names.includes(name)) return path.join(bundled, `${name}.json`);
  const close = suggest(name, names);
  throw new CliError(`no fixture file ${argument}`, close.length > 0 ? `did you mean the bundled fixture ${close.join(', ')}?` : `pass a JSON file, or a bundled fixture: ${names.join(', ')}`);
}

/** The bundled fixtures with the first sentence of each one's description, for `trigger --list`. */
export function bundledFixtures(): Array<{ name: string; summary: string }> {
  const dir = bundledFixturesDir();
  return readdirJson(dir).map((name) => {
    const description = (JSON.parse(readFileSync(path.join(dir, `${name}.json`), 'utf8')) as { description?: unknown }).description;
    const text = typeof description === 'string' ? description : '';
    // The first sentence: up to the first ": " or ". " that ends it, whichever comes first.
    const end = text.search(/[.:](\s|$)/);
    return { name, summary: end === -1 ? text : text.slice(0, end) };
  });
}

/** The bundled fixtures' names (`chargeback`, ...). */
function readdirJson(dir: string): string[] {
  return readdirSync(dir)
    .filter((f) => f.endsWith('.json') && f !== 'fixture.schema.json')
    .map((f) => f.slice(0, -'.json'.length))
    .sort();
}

/** The JSON Schema of a fixture file, shipped beside the fixtures (editors use it through `$schema`). */
function fixtureSchema(): Json {
  return JSON.parse(readFileSync(path.join(bundledFixturesDir(), 'fixture.schema.json'), 'utf8')) as Json;
}

/** A reference inside a string: `${step.path}`. */
export interface Reference {
  step: string;
  /** Property names and array indexes after the step id. */
  path: Array<string | number>;
  /** As written, for messages. */
  text: string;
}

const REF = /\$\{([^}]*)\}/g;
const REF_BODY = /^([A-Za-z_][A-Za-z0-9_]*)((?:\.[A-Za-z_][A-Za-z0-9_]*|\[\d+\])*)$/;

/** The references in a string; a malformed one throws with the reason. */
export function parseReferences(text: string): Reference[] {
  const refs: Reference[] = [];
  for (const match of text.matchAll(REF)) {
    const inner = match[1]!.trim();
    const m = REF_BODY.exec(inner);
    if (!m) throw new Error(`\${${match[1]}} is not a reference: write \${<step id>.<field>...}, such as \${issue.data.related_card_uuid} or \${products.data[0].id}`);
    const segments = [...m[2]!.matchAll(/\.([A-Za-z_][A-Za-z0-9_]*)|\[(\d+)\]/g)].map((s) => (s[1] !== undefined ? s[1] : Number(s[2])));
    refs.push({ step: m[1]!, path: segments, text: match[0] });
  }
  return refs;
}

/** Every string in a value with its JSON pointer (below `prefix`), depth-bounded. */
function strings(value: unknown, prefix: string, depth = 0, out: Array<[string, string]> = []): Array<[string, string]> {
  if (depth > MAX_DEPTH) throw new Error(`${prefix || '/'} is nested more than ${MAX_DEPTH} levels deep`);
  if (typeof value === 'string') out.push([prefix, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, `${prefix}/${i}`, depth + 1, out));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) strings(v, `${prefix}/${k.replace(/~/g, '~0').replace(/\//g, '~1')}`, depth + 1, out);
  return out;
}

/** The answer schema a reference to this step walks: the order reader's for an awaited asynchronous write. */
function answerSchema(docs: Docs, operation: Operation, step: FixtureStep): { schema: Json | null; document: Json; operationId: string } {
  if (operation.model.async && step.wait !== false) {
    const reader = docs.orderReader();
    return { schema: reader.model.success.schema as Json | null, document: docs.api.document as Json, operationId: reader.model.operationId };
  }
  return { schema: operation.model.success.schema as Json | null, document: (operation.doc === 'api' ? docs.api : docs.control).document as Json, operationId: operation.model.operationId };
}

function resolveRef(document: Json, schema: Json | undefined, depth = 0): Json | undefined {
  if (schema && typeof schema.$ref === 'string' && schema.$ref.startsWith('#/') && depth < MAX_DEPTH) {
    const target = (schema.$ref as string)
      .slice(2)
      .split('/')
      .reduce<unknown>((node, key) => (node as Json | undefined)?.[key.replace(/~1/g, '/').replace(/~0/g, '~')], document) as Json | undefined;
    return resolveRef(document, target, depth + 1);
  }
  return schema;
}

/**
 * Walks a reference's path through an answer schema. Returns null when the schema declares the path (or leaves it
 * open), else why not: a field the object does not declare (with those it does), or an index into a non-array.
 */
export function checkPath(document: Json, schema: Json | undefined | null, segments: Array<string | number>, depth = 0): string | null {
  const node = resolveRef(document, schema ?? undefined);
  if (!node || segments.length === 0 || depth > MAX_DEPTH) return null;
  const alternatives = [...((node.oneOf ?? []) as Json[]), ...((node.anyOf ?? []) as Json[])];
  if (alternatives.length > 0) {
    const reasons = alternatives.map((alt) => checkPath(document, alt, segments, depth + 1));
    if (reasons.some((r) => r === null)) return null;
    return reasons[0] ?? null;
  }
  const [head, ...rest] = segments;
  if (typeof head === 'number') {
    const items = node.items as Json | undefined;
    if (node.type !== 'array' && !items) return `[${head}]: not an array`;
    return checkPath(document, items, rest, depth + 1);
  }
  const properties: Record<string, Json> = {};
  const collect = (s: Json | undefined, d: number): void => {
    const r = resolveRef(document, s);
    if (!r || d > MAX_DEPTH) return;
    Object.assign(properties, r.properties ?? {});
    for (const part of (r.allOf ?? []) as Json[]) collect(part, d + 1);
  };
  collect(node, 0);
  const names = Object.keys(properties);
  if (names.length === 0) return null;
  if (!(head! in properties)) {
    const close = suggest(head!, names);
    return `.${head}: no such field${close.length > 0 ? ` (did you mean ${close.join(', ')}?)` : ''}; the answer has ${names.join(', ')}`;
  }
  const inner = checkPath(document, properties[head!], rest, depth + 1);
  return inner === null ? null : `.${head}${inner}`;
}

/** Checks a parsed fixture against the documents; returns every problem, `step <n> "<id>" (<call>): <reason>`. */
export function fixtureProblems(fixture: unknown, docs: Docs): string[] {
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  const validate = ajv.compile(fixtureSchema());
  if (!validate(fixture)) return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`);
  const { steps } = fixture as Fixture;
  const problems: string[] = [];
  const index = new Map<string, number>();
  steps.forEach((step, i) => {
    if (!index.has(step.id)) index.set(step.id, i);
  });
  steps.forEach((step, i) => {
    const where = `step ${i + 1} "${step.id}" (${step.call})`;
    const say = (reason: string): void => void problems.push(`${where}: ${reason}`);
    if (index.get(step.id) !== i) say(`the id "${step.id}" is already step ${index.get(step.id)! + 1}'s`);
    const operation = docs.operation(step.call);
    if (!operation) {
      const close = suggest(step.call, docs.operationIds);
      say(`no operation ${step.call} in the spec or the control document${close.length > 0 ? `; did you mean ${close.join(', ')}?` : ''}`);
    }
    const opaque = new Set<string>();
    for (const part of ['path', 'query', 'body'] as const) {
      if (step[part] === undefined) continue;
      let found: Array<[string, string]>;
      try {
        found = strings(step[part], `/${part}`);
      } catch (error) {
        say((error as Error).message);
        continue;
      }
      for (const [pointer, text] of found) {
        let refs: Reference[];
        try {
          refs = parseReferences(text);
        } catch (error) {
          say(`${pointer}: ${(error as Error).message}`);
          continue;
        }
        if (refs.length === 0) continue;
        opaque.add(pointer);
        for (const ref of refs) {
          const at = index.get(ref.step);
          if (at === undefined) {
            const close = suggest(ref.step, [...index.keys()]);
            say(`${pointer}: ${ref.text} refers to a step "${ref.step}" that does not exist${close.length > 0 ? ` (did you mean ${close.join(', ')}?)` : ''}`);
          } else if (at >= i) {
            say(`${pointer}: ${ref.text} refers to step ${at + 1} "${ref.step}", which ${at === i ? 'is this step' : 'comes later'}: a step can only use the answers of earlier steps`);
          } else {
            const referenced = steps[at]!;
            const refOperation = docs.operation(referenced.call);
            if (!refOperation) continue;
            const { schema, document, operationId } = answerSchema(docs, refOperation, referenced);
            const reason = checkPath(document, schema, ref.path);
            if (reason !== null) say(`${pointer}: ${ref.text}: the answer of ${operationId} has no ${ref.step}${reason}`);
          }
        }
      }
    }
    if (step.wait !== undefined && operation && !operation.model.async) say(`"wait" applies only to asynchronous writes (202 with an Order); ${step.call} answers at once`);
    if (operation) for (const problem of docs.requestProblems(operation, { path: step.path, query: step.query, body: step.body } as RequestInput, opaque)) say(problem);
  });
  return problems;
}

/** Reads and checks a fixture file: a CliError lists every problem, nothing has run. */
export async function loadFixture(file: string, docs: Docs): Promise<Fixture> {
  let text: string;
  try {
    if (statSync(file).size > MAX_FIXTURE_BYTES) throw new CliError(`${file} is larger than ${MAX_FIXTURE_BYTES} bytes`);
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw new CliError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new CliError(`${file} is not JSON: ${(error as Error).message}`);
  }
  const problems = fixtureProblems(parsed, docs);
  if (problems.length > 0) throw new CliError(`${file}: ${problems.length} problem${problems.length === 1 ? '' : 's'}, nothing was run:`, 'fix the steps; gen-card-api trigger --help describes the format', problems);
  return parsed as Fixture;
}

/** A value along a reference's path in an answer; undefined when the answer lacks it. */
function lookup(answers: Map<string, unknown>, ref: Reference): unknown {
  let node = answers.get(ref.step);
  for (const segment of ref.path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string | number, unknown>)[segment];
  }
  return node;
}

/** Replaces the references of a value with the answers: a string that is one reference takes the value's type. */
export function substitute(value: unknown, answers: Map<string, unknown>, depth = 0): unknown {
  if (depth > MAX_DEPTH) return value;
  if (typeof value === 'string') {
    const refs = parseReferences(value);
    if (refs.length === 0) return value;
    const resolved = refs.map((ref) => {
      const found = lookup(answers, ref);
      if (found === undefined) throw new CliError(`${ref.text}: step "${ref.step}" answered without it`);
      return found;
    });
    if (refs.length === 1 && refs[0]!.text === value) return resolved[0];
    let i = 0;
    return value.replace(REF, () => {
      const found = resolved[i++];
      if (found === null || typeof found === 'object') throw new CliError(`${refs[i - 1]!.text} is ${JSON.stringify(found)}, which cannot be written inside a string`);
      return String(found);
    });
  }
  if (Array.isArray(value)) return value.map((v) => substitute(v, answers, depth + 1));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, substitute(v, answers, depth + 1)]));
  return value;
}

/** Options of {@link runFixture}. */
export interface FixtureOptions {
  fixture: string;
  baseUrl?: string | undefined;
  token?: string | undefined;
}

/** Runs a fixture: checked first, then step by step; prints each call and, at the end, the events it made. */
export async function runFixture(options: FixtureOptions, output: Output): Promise<{ answers: Map<string, unknown>; deliveries: number }> {
  const docs = await loadDocs();
  const file = resolveFixturePath(options.fixture);
  const fixture = await loadFixture(file, docs);
  const api = new SandboxApi(resolveTarget(options, docs), docs, { print: output.out });
  const after = await newestDeliveryId(api);
  output.out(`fixture ${file}: ${fixture.steps.length} steps`);
  if (fixture.description) output.out(`  ${fixture.description}`);
  const answers = new Map<string, unknown>();
  for (const [i, step] of fixture.steps.entries()) {
    const where = `step ${i + 1} "${step.id}" (${step.call})`;
    output.out(`${where}${step.description ? `: ${step.description}` : ''}`);
    try {
      const input = substitute({ path: step.path, query: step.query, body: step.body }, answers) as RequestInput;
      const operation = api.operation(step.call);
      const result = await api.call(step.call, input);
      if (operation.model.async && step.wait !== false) answers.set(step.id, { data: await waitForOrder(api, String(result.body.data.uuid)) });
      else answers.set(step.id, result.body);
    } catch (error) {
      if (error instanceof CliError) throw new CliError(`${where}: ${error.message}`, error.hint, error.details);
      throw error;
    }
  }
  const made = (await listDeliveries(api, { limit: 1000 })).filter((d) => d.id > after);
  const byEvent = new Map<number, string>();
  for (const d of made) byEvent.set(d.event_id, d.event);
  output.out(
    byEvent.size === 0
      ? 'no webhook deliveries (no active endpoint subscribes to these events: run gen-card-api listen first)'
      : `${byEvent.size} event${byEvent.size === 1 ? '' : 's'} queued for delivery: ${[...byEvent].map(([id, event]) => `${event} [${id}]`).join(', ')}`,
  );
  return { answers, deliveries: made.length };
}
