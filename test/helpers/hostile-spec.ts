/**
 * The hostile-spec corpus (issue 22): hostile copies of spec/openapi.yaml, every target rendered from each, all
 * variants type-checked in one TypeScript program, and every generated module imported in one child process
 * whose sentinels (`globalThis.__hostile`, `console.*`, `process.exit`) any injected code would trip.
 *
 * A copy is pruned to a few operations and events (everything else of the spec unchanged), so that one
 * variant renders in a fraction of a second; every kind of field and every context keeps an instance.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import ts from 'typescript';
import { renderClient } from '../../generators/client/index.js';
import type { GeneratedFile } from '../../generators/core/target.js';
import { buildModel, type ApiModel, type JsonObject, type LoadedSpec } from '../../generators/model/index.js';
import { renderSandboxControl } from '../../generators/sandbox-control/index.js';
import { renderServer, scaffoldHandlers } from '../../generators/server/index.js';
import { typesTarget } from '../../generators/types/index.js';
import { renderWebhooks } from '../../generators/webhooks/index.js';
import { ROOT } from './spec.js';
import { WAIT_MS } from './limits.js';

export { hostileName, hostileText, PAYLOADS } from './hostile-payloads.js';

const run = promisify(execFile);

type Doc = Record<string, any>;

/** Defines a key on an object as an own property, so that `__proto__` is a key and not the prototype. */
function put(target: Doc, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Removes everything but `paths` and `webhooks` and the components they reach (transitively). */
export function prune(document: JsonObject, paths: readonly string[], webhooks: readonly string[]): Doc {
  const doc = structuredClone(document) as Doc;
  doc.paths = Object.fromEntries(paths.map((p) => [p, doc.paths[p]]));
  doc.webhooks = Object.fromEntries(webhooks.map((w) => [w, doc.webhooks[w]]));
  const reached = new Set<string>();
  const visit = (node: unknown): void => {
    if (typeof node !== 'object' || node === null) return;
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && value.startsWith('#/components/') && !reached.has(value)) {
        reached.add(value);
        const [, , kind, name] = value.split('/');
        visit(doc.components[kind!]?.[name!.replace(/~1/g, '/').replace(/~0/g, '~')]);
      }
      visit(value);
    }
  };
  visit({ paths: doc.paths, webhooks: doc.webhooks, security: doc.security });
  for (const [kind, entries] of Object.entries(doc.components as Doc)) {
    if (kind === 'securitySchemes') continue;
    for (const name of Object.keys(entries as Doc)) if (!reached.has(`#/components/${kind}/${name}`)) delete (entries as Doc)[name];
  }
  return doc;
}

/** The operations and events a corpus copy keeps: a list with query parameters, a read with a waiter, a write, a root method. */
export const KEPT_PATHS = ['/cards', '/orders/{uuid}', '/ping'];
export const KEPT_WEBHOOKS = ['order.completed', 'card.frozen'];

function operations(doc: Doc): Doc[] {
  return Object.values(doc.paths as Doc).flatMap((item: Doc) => ['get', 'post'].map((m) => item[m]).filter(Boolean));
}

/**
 * Free-text fields: the model escapes these, never refuses them. `apply` takes a supply of values; a field
 * with several instances (every operation's summary) takes one each. Keys (property, parameter, enum and event
 * names) take theirs from `key`, which skips the Object.prototype member names: those are refused, and
 * NAME_FIELDS checks that.
 */
export const TEXT_FIELDS: ReadonlyArray<{ field: string; apply: (doc: Doc, next: () => string, key: () => string) => void }> = [
  { field: 'info.title', apply: (d, next) => (d.info.title = next()) },
  { field: 'info.version', apply: (d, next) => (d.info.version = next()) },
  { field: 'info.description and contact', apply: (d, next) => ((d.info.description = next()), (d.info.contact = { name: next() })) },
  { field: 'servers[].url', apply: (d, next) => (d.servers = [{ url: next(), description: next() }]) },
  {
    field: 'operation tags',
    apply: (d, next) => {
      for (const op of operations(d)) {
        op.tags = [next()];
        d.tags.push({ name: op.tags[0], description: next() });
      }
    },
  },
  {
    field: 'security scopes',
    apply: (d, next) => {
      for (const op of operations(d)) if (op.security?.[0]?.bearerAuth) op.security = [{ bearerAuth: [next()] }, { bearerAuth: [next(), next()] }];
    },
  },
  { field: 'operation summaries', apply: (d, next) => operations(d).forEach((op) => (op.summary = next())) },
  { field: 'operation descriptions', apply: (d, next) => operations(d).forEach((op) => (op.description = next())) },
  {
    field: 'response descriptions',
    apply: (d, next) => {
      for (const op of operations(d)) for (const r of Object.values(op.responses as Doc)) if (!r.$ref) r.description = next();
      for (const r of Object.values(d.components.responses as Doc)) r.description = next();
    },
  },
  {
    field: 'parameter descriptions',
    apply: (d, next) => {
      for (const item of Object.values(d.paths as Doc)) for (const p of item.parameters ?? []) if (!p.$ref) p.description = next();
      for (const p of Object.values(d.components.parameters as Doc)) p.description = next();
    },
  },
  {
    field: 'webhook summaries and descriptions',
    apply: (d, next) => Object.values(d.webhooks as Doc).forEach((w) => ((w.post.summary = next()), (w.post.description = next()))),
  },
  {
    field: 'schema descriptions, titles, examples and defaults',
    apply: (d, next) => {
      for (const name of ['Card', 'Order', 'CreateCardRequest', 'OrderStatus', 'OrderCompletedData']) {
        const s = d.components.schemas[name];
        s.description = next();
        s.title = next();
      }
      d.components.schemas.Card.properties.masked_pan.examples = [next()];
      d.components.schemas.CreateCardRequest.properties.cardholder_first_name.default = next();
    },
  },
  {
    field: 'enum values and x-enumDescriptions (one blank)',
    apply: (d, next, key) => {
      for (const name of ['CardStatus', 'OrderStatus', 'ErrorCode']) {
        const s = d.components.schemas[name];
        const described = key();
        const blank = key();
        s.enum.push(described, blank);
        put(s['x-enumDescriptions'], described, next());
        put(s['x-enumDescriptions'], blank, '');
      }
    },
  },
  {
    field: 'property names (schemas, request body, event data) and const values',
    apply: (d, next, key) => {
      for (const name of ['Card', 'CreateCardRequest', 'OrderCompletedData']) {
        const s = d.components.schemas[name];
        put(s.properties, key(), { type: 'string', description: next() });
        put(s.properties, key(), { const: next() });
      }
    },
  },
  {
    field: 'query and header parameter names',
    apply: (d, _next, key) => {
      d.paths['/cards'].get.parameters.push(
        { name: key(), in: 'query', description: 'x', schema: { type: 'array', items: { type: 'string' } }, style: 'form', explode: false },
        { name: key(), in: 'query', description: 'x', schema: { type: 'string' } },
      );
      d.paths['/cards'].post.parameters.push({ name: key(), in: 'header', description: 'x', schema: { type: 'string' } });
    },
  },
  {
    field: 'webhook names, with the event const and the example',
    apply: (d, _next, key) => {
      const name = key();
      const item = d.webhooks['order.completed'];
      delete d.webhooks['order.completed'];
      put(d.webhooks, name, item);
      d.components.schemas.OrderCompletedEvent.allOf[1].properties.event.const = name;
      item.post.requestBody.content['application/json'].example.event = name;
    },
  },
  {
    field: 'example values and keys',
    apply: (d, next, key) => {
      const example = d.webhooks['card.frozen'].post.requestBody.content['application/json'].example;
      const name = key();
      put(d.components.schemas.CardFrozenData.allOf[1].properties, name, { type: 'string' });
      put(example.data, name, next());
      example.data.card_uuid = next();
    },
  },
  { field: 'x- extension text', apply: (d, next, key) => put((d['x-note'] = {}), key(), next()) },
];

/** Name fields: the model refuses a name that cannot become code, at `pointer` (a prefix of the reported one). */
export const NAME_FIELDS: ReadonlyArray<{ field: string; pointer: (value: string) => string; apply: (doc: Doc, value: string) => void }> = [
  { field: 'x-client.resource', pointer: () => '#/paths/~1cards/get/x-client', apply: (d, v) => (d.paths['/cards'].get['x-client'].resource = v) },
  { field: 'x-client.method', pointer: () => '#/paths/~1cards/post/x-client', apply: (d, v) => (d.paths['/cards'].post['x-client'].method = v) },
  { field: 'x-client.method of a root operation', pointer: () => '#/paths/~1ping/get/x-client', apply: (d, v) => (d.paths['/ping'].get['x-client'].method = v) },
  { field: 'x-client.waiter', pointer: () => '#/paths/~1orders~1{uuid}/get/x-client', apply: (d, v) => (d.paths['/orders/{uuid}'].get['x-client'].waiter = v) },
  { field: 'operationId', pointer: () => '#/paths/~1cards/get/operationId', apply: (d, v) => (d.paths['/cards'].get.operationId = v) },
  {
    field: 'path parameter name',
    pointer: () => '#/paths/',
    apply: (d, v) => {
      const item = d.paths['/orders/{uuid}'];
      delete d.paths['/orders/{uuid}'];
      put(d.paths, `/orders/{${v}}`, item);
      item.parameters[0].name = v;
    },
  },
  {
    field: 'path key',
    pointer: () => '#/paths/',
    apply: (d, v) => {
      const item = d.paths['/ping'];
      delete d.paths['/ping'];
      put(d.paths, `/ping${v}`, item);
    },
  },
  {
    field: 'property name',
    pointer: () => '#/components/schemas/Card/properties/',
    apply: (d, v) => put(d.components.schemas.Card.properties, v, { type: 'string' }),
  },
  {
    field: 'query parameter name',
    pointer: () => '#/paths/~1cards/get/parameters/',
    apply: (d, v) => d.paths['/cards'].get.parameters.push({ name: v, in: 'query', description: 'x', schema: { type: 'string' } }),
  },
  {
    field: 'enum value',
    pointer: () => '#/components/schemas/CardStatus/',
    apply: (d, v) => {
      d.components.schemas.CardStatus.enum.push(v);
      put(d.components.schemas.CardStatus['x-enumDescriptions'], v, 'x');
    },
  },
  {
    field: 'webhook name',
    pointer: () => '#/',
    apply: (d, v) => {
      const item = d.webhooks['card.frozen'];
      delete d.webhooks['card.frozen'];
      put(d.webhooks, v, item);
      d.components.schemas.CardFrozenEvent.allOf[1].properties.event.const = v;
      item.post.requestBody.content['application/json'].example.event = v;
    },
  },
  {
    field: 'schema name',
    pointer: () => '#/components/schemas/',
    apply: (d, v) => {
      const schemas = d.components.schemas as Doc;
      const renamed: Doc = {};
      for (const [k, s] of Object.entries(schemas)) put(renamed, k === 'Order' ? v : k, s);
      d.components.schemas = renamed;
      const ref = `#/components/schemas/${v.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      const visit = (node: unknown): void => {
        if (typeof node !== 'object' || node === null) return;
        for (const value of Object.values(node)) visit(value);
        if ((node as Doc).$ref === '#/components/schemas/Order') (node as Doc).$ref = ref;
      };
      visit(d);
    },
  },
];

/** The model of a hostile copy, built as `loadModel` builds it once the loader has bundled and validated. */
export function modelOf(doc: Doc, file: string): ApiModel {
  const spec: LoadedSpec = { file, document: doc as JsonObject, hash: 'hostile' };
  return buildModel(spec);
}

/** Applies every text field, each instance taking the next value from `values` (cycling). */
export function withText(base: Doc, values: readonly string[], offset = 0): Doc {
  const doc = structuredClone(base);
  let i = offset;
  let k = offset;
  const next = (): string => values[i++ % values.length]!;
  const keys = values.filter((v) => !REFUSED_KEYS.has(v));
  const key = (): string => (keys.length > 0 ? keys[k++ % keys.length]! : `k${k++}`);
  for (const { apply } of TEXT_FIELDS) apply(doc, next, key);
  return doc;
}

/** Keys the model refuses wherever they are (see NAME_FIELDS): Object.prototype members but `__proto__` and `then`. */
const REFUSED_KEYS = new Set(Object.getOwnPropertyNames(Object.prototype).filter((k) => k !== '__proto__'));

/** Files every variant shares byte for byte (the runtimes copied from templates/), written once. */
const SHARED_RUNTIMES = ['client', 'server', 'webhooks'];

export interface Corpus {
  dir: string;
  /** Per variant: its folder, the modules to import, and whether to start the control routes too. */
  variants: Array<{ name: string; dir: string; entries: string[]; control: boolean }>;
}

/** Creates a corpus folder with the shared runtimes. */
export function createCorpus(dir: string): Corpus {
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'hostile-corpus', private: true, type: 'module' }));
  return { dir, variants: [] };
}

function writeAll(files: GeneratedFile[], from: string, to: string, runtime: string | null, corpus: Corpus): void {
  for (const file of files) {
    if (!file.path.startsWith(`${from}/`)) throw new Error(`unexpected path ${file.path}`);
    const rel = file.path.slice(from.length + 1);
    if (rel.startsWith('runtime/')) {
      // The runtime does not depend on the spec: one copy for every variant, reached through a symlink.
      const shared = path.join(corpus.dir, 'runtime', runtime!, rel.slice('runtime/'.length));
      mkdirSync(path.dirname(shared), { recursive: true });
      writeFileSync(shared, file.contents);
      continue;
    }
    if (rel === 'types.gen.ts' && from !== 'types') {
      // The same text as the types target's (checked by the caller), compiled once.
      writeFileSync(path.join(to, rel), "export * from '../types/types.gen.js';\n");
      continue;
    }
    const target = path.join(to, rel);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, file.contents);
  }
  if (runtime !== null && SHARED_RUNTIMES.includes(runtime)) symlinkSync(path.join(corpus.dir, 'runtime', runtime), path.join(to, 'runtime'), 'dir');
}

/**
 * Renders every target of `model` into `<corpus>/<name>/`: types, client and server (types vendored),
 * webhooks, the sandbox-control transforms and the handler scaffold (pointed at this variant's server).
 * `control` also starts the control routes on the server runtime: the same transforms as the server's, so
 * a few variants are enough.
 */
export async function addVariant(corpus: Corpus, name: string, model: ApiModel, options: { control?: boolean } = {}): Promise<void> {
  const dir = path.join(corpus.dir, name);
  const parts = ['types', 'client', 'server', 'webhooks', 'control', 'scaffold'];
  for (const part of parts) mkdirSync(path.join(dir, part), { recursive: true });
  const local = { typesImport: 'local' } as const;
  const types = await typesTarget.render(model, local);
  const typesText = types.find((f) => f.path.endsWith('types.gen.ts'))!.contents;
  const client = await renderClient(model, local, 'client');
  const server = await renderServer(model, local, 'server');
  const webhooks = (await renderWebhooks(model, './types.gen.js')).map((f) => ({ ...f, path: f.path.replace('packages/webhooks/src', 'webhooks') }));
  const control = (await renderSandboxControl(model)).map((f) => ({ ...f, path: f.path.replace('packages/sandbox/src/control', 'control') }));
  for (const files of [client, server, control]) {
    const vendored = files.find((f) => f.path.endsWith('/types.gen.ts'))!.contents;
    if (vendored.split('\n').slice(1).join('\n') !== typesText.split('\n').slice(1).join('\n')) throw new Error('a vendored types.gen.ts differs from the types target');
  }
  writeAll(types.map((f) => ({ ...f, path: f.path.replace('packages/types/src', 'types') })), 'types', path.join(dir, 'types'), null, corpus);
  writeAll(client, 'client', path.join(dir, 'client'), 'client', corpus);
  writeAll(server, 'server', path.join(dir, 'server'), 'server', corpus);
  writeAll([...webhooks, { path: 'webhooks/types.gen.ts', contents: typesText }], 'webhooks', path.join(dir, 'webhooks'), 'webhooks', corpus);
  writeAll(control, 'control', path.join(dir, 'control'), null, corpus);
  const scaffold = scaffoldHandlers(model, 'scaffold').map((f) => ({ ...f, contents: f.contents.replace("from '@card-api/server'", "from '../server/index.js'") }));
  writeAll(scaffold, 'scaffold', path.join(dir, 'scaffold'), null, corpus);
  corpus.variants.push({
    name,
    dir,
    control: options.control ?? false,
    entries: [
      'types/index.ts',
      'client/index.ts',
      'server/index.ts',
      ...['index.ts', 'web.ts', 'adapters.ts', 'secrets.ts', 'lifeline.ts', 'testing.ts', 'fixtures.gen.ts'].map((f) => `webhooks/${f}`),
      ...['handlers.gen.ts', 'routes.gen.ts', 'spec.gen.ts', 'types.gen.ts'].map((f) => `control/${f}`),
      'scaffold/index.ts',
    ].map((e) => path.join(dir, e)),
  });
}

/**
 * Type-checks the generated files of the corpus in one program, as strictly as the repository does, and
 * returns the messages. Only the generated files are checked: the runtimes they import are the same for every
 * variant and checked by the repository's own typecheck.
 */
export function typecheck(corpus: Corpus, files: string[]): { messages: string[]; program: ts.Program } {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(ROOT, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => {} })!;
  const program = ts.createProgram(files, { ...parsed.options, noEmit: true });
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...files.flatMap((file) => {
      const source = program.getSourceFile(file);
      return source ? [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)] : [];
    }),
  ];
  const messages = diagnostics.map((d) => {
    const where = d.file && d.start !== undefined ? `${path.relative(corpus.dir, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
  return { messages, program };
}

/** Names each runtime's entry modules export, from the checker (runtime → names), as a variant imports them. */
export function checkerRuntimeExports(variant: string, program: ts.Program): Map<string, string> {
  const checker = program.getTypeChecker();
  const names = new Map<string, string>();
  const entries: Record<string, string[]> = { client: ['index.ts'], server: ['index.ts'], webhooks: ['index.ts', 'web.ts', 'adapters.ts', 'secrets.ts', 'lifeline.ts'] };
  for (const [runtime, files] of Object.entries(entries)) {
    for (const file of files) {
      const source = program.getSourceFile(path.join(variant, runtime, 'runtime', file));
      const symbol = source && checker.getSymbolAtLocation(source);
      if (!symbol) throw new Error(`no module symbol for the ${runtime} runtime's ${file}`);
      for (const name of checker.getExportsOfModule(symbol)) if (!names.has(name.name)) names.set(name.name, runtime);
    }
  }
  return names;
}

/** Top-level names (declared or imported) of the given generated files. */
export function topLevelNames(program: ts.Program, files: string[]): Set<string> {
  const names = new Set<string>();
  for (const file of files) {
    for (const statement of program.getSourceFile(file)!.statements) {
      if (ts.isImportDeclaration(statement)) {
        const clause = statement.importClause;
        if (clause?.name) names.add(clause.name.text);
        const bindings = clause?.namedBindings;
        if (bindings && ts.isNamedImports(bindings)) for (const element of bindings.elements) names.add(element.name.text);
        if (bindings && ts.isNamespaceImport(bindings)) names.add(bindings.name.text);
      } else if (ts.isVariableStatement(statement)) {
        for (const d of statement.declarationList.declarations) if (ts.isIdentifier(d.name)) names.add(d.name.text);
      } else if ((ts.isClassDeclaration(statement) || ts.isFunctionDeclaration(statement) || ts.isInterfaceDeclaration(statement) || ts.isTypeAliasDeclaration(statement) || ts.isEnumDeclaration(statement)) && statement.name) {
        names.add(statement.name.text);
      }
    }
  }
  return names;
}

/** Globals (declared only in the default libraries or @types/node) that the given generated files refer to. */
export function globalsReferenced(program: ts.Program, files: string[]): Set<string> {
  const checker = program.getTypeChecker();
  const isLib = (source: ts.SourceFile): boolean => program.isSourceFileDefaultLibrary(source) || source.fileName.includes('/node_modules/@types/node/');
  const found = new Set<string>();
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node)) {
      const parent = node.parent as ts.Node & { name?: ts.Node; propertyName?: ts.Node };
      const isName = parent.name === node || parent.propertyName === node || (ts.isQualifiedName(parent) && parent.right === node);
      const declarations = isName ? undefined : checker.getSymbolAtLocation(node)?.declarations;
      if (declarations && declarations.length > 0 && declarations.every((d) => isLib(d.getSourceFile()))) found.add(node.text);
    }
    ts.forEachChild(node, visit);
  };
  for (const file of files) visit(program.getSourceFile(file)!);
  return found;
}

/** The generated files of every variant (the runtimes come in through their imports, once). */
export function corpusFiles(corpus: Corpus): string[] {
  const files: string[] = [];
  for (const v of corpus.variants) {
    for (const part of ['types', 'client', 'server', 'webhooks', 'control', 'scaffold']) {
      for (const name of readdirSync(path.join(v.dir, part))) if (name.endsWith('.ts')) files.push(path.join(v.dir, part, name));
    }
  }
  return files;
}

export interface ImportReport {
  /** Sentinel calls, console output and exit attempts made while importing: must stay empty. */
  tripped: string[];
  /** Per module: `ok` or the error it threw on import. */
  modules: Record<string, string>;
  /** Per variant: what starting its server (and the control routes) gave. */
  servers: Record<string, string>;
  /** Per variant: whether `await client` would call something. */
  thenable: Record<string, boolean>;
}

/** Imports every variant's modules in one child process with the sentinels armed, and starts each server. */
export async function importAll(corpus: Corpus): Promise<ImportReport> {
  const plan = path.join(corpus.dir, 'plan.json');
  const report = path.join(corpus.dir, 'report.json');
  writeFileSync(plan, JSON.stringify(corpus.variants));
  const child = path.join(ROOT, 'test/helpers/hostile-import.ts');
  const result = await run(process.execPath, ['--conditions=@card-api/source', '--import', 'tsx', child, plan, report], { cwd: ROOT, maxBuffer: 16 * 1024 * 1024, timeout: WAIT_MS }).catch(
    (error: { stdout?: string; stderr?: string; code?: number }) => error,
  );
  let parsed: ImportReport;
  try {
    parsed = JSON.parse(readFileSync(report, 'utf8')) as ImportReport;
  } catch {
    throw new Error(`the import child wrote no report: ${JSON.stringify(result).slice(0, 2000)}`);
  }
  if (result.stdout) parsed.tripped.push(`stdout: ${result.stdout}`);
  return parsed;
}
