/**
 * Issue 22, generation side: a spec is untrusted input. Hostile copies of spec/openapi.yaml (named payloads
 * and fast-check strings in every free-text and name field) are either refused with a pointer, or rendered by
 * every target (types, client, server, webhooks, sandbox-control transforms, handler scaffold) into modules that
 * compile under the repository's strict settings, import without running any spec text (sentinels in a child
 * process), start their server on Fastify, and do not make the client thenable. The loader and the CLI are
 * exercised end to end for a few cases, and lint flags every case with its pointer.
 *
 * Bounded: the copies are pruned to a few operations and events; all variants are type-checked in one
 * TypeScript program and imported in one child process, the two running side by side.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import fc from 'fast-check';
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { lintSpec } from '../../generators/lint/lint-spec.js';
import { loadSpec, patternProblem, schemaRuntimeReport, SpecError, SpecErrors, type ApiModel } from '../../generators/model/index.js';
import { enumValuesName, GENERATED_NAMES, isWellFormed, GLOBALS_USED, OPENAPI_TYPESCRIPT_NAMES, queryTypeName, resourceClassName, runtimeExports, SCAFFOLD_NAMES } from '../../generators/model/names.js';
import { wellFormedText } from '../helpers/hostile-payloads.js';
import {
  addVariant,
  checkerRuntimeExports,
  corpusFiles,
  createCorpus,
  globalsReferenced,
  hostileName,
  importAll,
  KEPT_PATHS,
  KEPT_WEBHOOKS,
  modelOf,
  NAME_FIELDS,
  PAYLOADS,
  prune,
  TEXT_FIELDS,
  topLevelNames,
  typecheck,
  withText,
} from '../helpers/hostile-spec.js';
import { ROOT, SPEC_PATH, tempDir, writeSpecCopy } from '../helpers/spec.js';

const run = promisify(execFile);
const BIN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');
const tmp = tempDir('hostile');
afterAll(tmp.cleanup);

const spec = await loadSpec(SPEC_PATH);
const base = prune(spec.document, KEPT_PATHS, KEPT_WEBHOOKS);
const FILE = path.join(tmp.dir, 'openapi.yaml');

type Outcome = { model: ApiModel; errors?: undefined } | { model?: undefined; errors: readonly SpecError[] };

/** Builds the model of a copy; anything but a SpecError escaping is a failure of the generators. */
function outcome(doc: object): Outcome {
  try {
    return { model: modelOf(doc, FILE) };
  } catch (error) {
    if (error instanceof SpecErrors) return { errors: error.errors };
    if (error instanceof SpecError) return { errors: [error] };
    throw error;
  }
}

/** A refusal names the file and a JSON pointer, at least one of them inside the field. */
function expectRefusedAt(errors: readonly SpecError[], prefix: string, label: string): void {
  expect(errors.length, label).toBeGreaterThan(0);
  for (const e of errors) {
    expect(e.file, label).toMatch(/openapi\.yaml$/);
    expect(e.pointer, label).toMatch(/^#(\/|$)/);
    expect(e.reason.length, label).toBeGreaterThan(0);
  }
  expect(errors.some((e) => e.pointer.startsWith(prefix)), `${label}: ${errors.map((e) => e.message).join(' | ')}`).toBe(true);
}

const WELL_FORMED = PAYLOADS.map(([, v]) => v).filter(isWellFormed);
/**
 * Accepted mutations of the fields that become identifiers, compiled and imported with the text variants
 * below (keys such as property names are text there already).
 */
const acceptedNames: Array<{ field: string; value: string }> = [];
const KEY_FIELDS = new Set(['property name', 'query parameter name', 'enum value', 'webhook name']);
function accept(field: string, value: string): void {
  if (!KEY_FIELDS.has(field) && acceptedNames.length < 40 && !acceptedNames.some((a) => a.field === field && a.value === value)) acceptedNames.push({ field, value });
}

describe('names from a hostile spec', () => {
  /** Decisions the rules must make, beyond "refused with a pointer or accepted". */
  const MUST: Array<[string, string, 'refused' | 'accepted']> = [
    ['x-client.method', 'constructor', 'refused'],
    ['x-client.method', 'then', 'refused'],
    ['x-client.method', 'class', 'accepted'],
    ['x-client.resource', 'then', 'refused'],
    ['x-client.resource', '__proto__', 'refused'],
    ['x-client.waiter', "*/ console.log('x'); /*", 'refused'],
    ['x-client.method of a root operation', 'toString', 'refused'],
    ['operationId', 'class', 'refused'],
    ['operationId', 'then', 'refused'],
    ['path parameter name', 'u: any = console.log(1), uuid', 'refused'],
    ['path parameter name', 'options', 'refused'],
    ['path key', "*/ console.log('x'); /*", 'refused'],
    ['path key', '/{uuid}', 'refused'],
    ['schema name', 'class', 'refused'],
    ['schema name', 'ClientCore', 'refused'],
    ['schema name', 'RequestOptions', 'refused'],
    ['schema name', 'components', 'refused'],
    ['schema name', 'operations', 'refused'],
    ['schema name', 'Promise', 'refused'],
    ['schema name', 'OrderValues', 'accepted'],
    ['property name', '__proto__', 'accepted'],
    ['property name', 'hasOwnProperty', 'refused'],
    ['property name', 'toString', 'refused'],
    ['property name', 'then', 'accepted'],
    ['property name', 'a\rb', 'accepted'],
    ['property name', 'a\uD800b', 'refused'],
    ['enum value', 'a\u2028b', 'accepted'],
    ['webhook name', "'; process.exit(1); '", 'accepted'],
  ];

  it.each(NAME_FIELDS.map((f) => [f.field, f] as const))('%s: refused with its pointer, or a name generated code can take', (_, field) => {
    const values = [...PAYLOADS.map(([, v]) => v), ...MUST.filter(([f]) => f === field.field).map(([, v]) => v)];
    for (const value of values) {
      const doc = structuredClone(base);
      field.apply(doc, value);
      const result = outcome(doc);
      const must = MUST.find(([f, v]) => f === field.field && v === value)?.[2];
      const label = `${field.field} = ${JSON.stringify(value)}`;
      if (must) expect(result.errors === undefined ? 'accepted' : 'refused', `${label}: ${result.errors?.map((e) => e.message).join(' | ')}`).toBe(must);
      if (result.errors) expectRefusedAt(result.errors, field.pointer(value), label);
      else accept(field.field, value);
    }
  });

  it('fast-check: an arbitrary name in any name field is refused with its pointer or accepted', () => {
    fc.assert(
      fc.property(fc.constantFrom(...NAME_FIELDS), hostileName, (field, value) => {
        const doc = structuredClone(base);
        field.apply(doc, value);
        const result = outcome(doc);
        if (result.errors) expectRefusedAt(result.errors, field.pointer(value), `${field.field} = ${JSON.stringify(value)}`);
        else accept(field.field, value);
      }),
      { numRuns: 150 },
    );
  });

  it('refuses a $ref outside components, paths and webhooks, which openapi-typescript would write as a type name', () => {
    const doc = structuredClone(base) as any;
    doc['x-evil */ globalThis.__hostile(); /*'] = { a: { type: 'string' } };
    doc.components.schemas.Card.properties.masked_pan = { $ref: '#/x-evil */ globalThis.__hostile(); /*/a' };
    const result = outcome(doc);
    expectRefusedAt(result.errors ?? [], '#/components/schemas/Card/properties/masked_pan/$ref', 'ref root');
  });
});

describe('modules generated from hostile specs', () => {
  it('compile under strict settings, import without running spec text and start their server, for every target', async () => {
    const corpus = createCorpus(path.join(tmp.dir, 'corpus'));
    // Every named payload in every text field: each variant starts the rotation one payload further, so
    // single fields (the title) see the first ones and fields with several instances see them all.
    for (let v = 0; v < 16; v += 1) {
      const result = outcome(withText(base, WELL_FORMED, v));
      expect(result.errors?.map((e) => e.message) ?? []).toEqual([]);
      await addVariant(corpus, `text-${v}`, result.model!, { control: v % 4 === 0 });
    }
    // Arbitrary text in every text field.
    const samples = fc.sample(fc.array(wellFormedText, { minLength: 60, maxLength: 60 }), { numRuns: 2 });
    for (const [i, values] of samples.entries()) {
      const result = outcome(withText(base, values));
      if (result.errors) expectRefusedAt(result.errors, '#/', 'arbitrary text');
      else await addVariant(corpus, `arbitrary-${i}`, result.model);
    }
    // The accepted names, grouped: each group applies at most one value per field.
    const groups: Array<Array<{ field: string; value: string }>> = [];
    for (const accepted of acceptedNames) {
      const group = groups.find((g) => !g.some((a) => a.field === accepted.field));
      if (group) group.push(accepted);
      else groups.push([accepted]);
    }
    let added = 0;
    for (const group of groups.slice(0, 4)) {
      const apply = (items: typeof group): ReturnType<typeof outcome> => {
        const doc = structuredClone(base);
        for (const { field, value } of items) NAME_FIELDS.find((f) => f.field === field)!.apply(doc, value);
        return outcome(doc);
      };
      const together = apply(group);
      // Two names accepted alone may clash together; then each goes on its own.
      for (const result of together.model ? [together] : group.slice(0, 3).map((a) => apply([a]))) {
        expect(result.errors?.map((e) => e.message) ?? []).toEqual([]);
        await addVariant(corpus, `names-${(added += 1)}`, result.model!);
      }
    }
    // The whole spec, unpruned, with every text field hostile.
    const whole = outcome(withText(structuredClone(spec.document), WELL_FORMED));
    expect(whole.errors?.map((e) => e.message) ?? []).toEqual([]);
    await addVariant(corpus, 'whole', whole.model!, { control: true });

    // The cases the issue names reached the output as keys and literals, not as code.
    const routes = corpus.variants.map((v) => readFileSync(path.join(v.dir, 'server/routes.gen.ts'), 'utf8')).join('\n');
    expect(routes).toContain("['__proto__']: ");
    expect(routes).toContain(String.raw`'x\rglobalThis.__hostile?.(\'cr\');'`);

    // Type-check and import side by side: the child process runs while this one checks.
    const imported = importAll(corpus);
    const { messages, program } = typecheck(corpus, corpusFiles(corpus));
    const report = await imported;
    expect(messages).toEqual([]);
    expect(report.tripped).toEqual([]);
    expect(Object.entries(report.modules).filter(([, status]) => status !== 'ok')).toEqual([]);
    expect(Object.keys(report.modules)).toHaveLength(corpus.variants.reduce((n, v) => n + v.entries.length, 0));
    expect(Object.entries(report.servers).filter(([, status]) => status !== 'ok')).toEqual([]);
    expect(Object.keys(report.servers)).toHaveLength(corpus.variants.length + corpus.variants.filter((v) => v.control).length);
    expect(Object.entries(report.thenable).filter(([, thenable]) => thenable)).toEqual([]);

    // The name lists of model/names.ts, checked against the checker on the same program.
    const plain = corpus.variants.find((v) => v.name === 'text-0')!;
    const fromChecker = checkerRuntimeExports(plain.dir, program);
    expect([...runtimeExports().keys()].sort()).toEqual([...fromChecker.keys()].sort());
    const generated = corpusFiles({ ...corpus, variants: [plain] });
    const model = outcome(withText(base, WELL_FORMED, 0)).model!;
    const derived = new Set([
      ...model.schemas.map((s) => s.name),
      ...model.enums.map((e) => enumValuesName(e.name)),
      ...model.operations.filter((op) => op.queryParams.length > 0).map((op) => queryTypeName(op.operationId)),
      ...model.operations.flatMap((op) => (op.resource ? [resourceClassName(op.resource)] : [])),
      ...model.operations.map((op) => op.operationId),
    ]);
    const known = new Set<string>([...GENERATED_NAMES, ...OPENAPI_TYPESCRIPT_NAMES, ...SCAFFOLD_NAMES, ...fromChecker.keys()]);
    expect([...topLevelNames(program, generated)].filter((name) => !derived.has(name) && !known.has(name))).toEqual([]);
    expect([...globalsReferenced(program, generated)].filter((name) => !(GLOBALS_USED as readonly string[]).includes(name))).toEqual([]);
  });
});

describe('through the loader and the CLI', () => {
  /** Writes a hostile (pruned) copy as YAML, as a spec PR would carry it. */
  function writeCopy(name: string, edit: (doc: any) => void): string {
    const dir = path.join(tmp.dir, name);
    mkdirSync(dir, { recursive: true });
    const doc = structuredClone(base) as any;
    edit(doc);
    const file = path.join(dir, 'openapi.yaml');
    writeFileSync(file, stringify(doc, { lineWidth: 0 }));
    return file;
  }

  /** Spec copies the CLI must refuse, each with the pointers its errors must carry. */
  const REFUSED: Array<[string, (doc: any) => void, string[]]> = [
    [
      'a property named hasOwnProperty (the bundler crashed without a pointer)',
      (d) => Object.defineProperty(d.components.schemas.Card.properties, 'hasOwnProperty', { value: { type: 'string' }, enumerable: true }),
      ['#/components/schemas/Card/properties/hasOwnProperty'],
    ],
    [
      'a client method named constructor, a schema named class, a path parameter that is code',
      (d) => {
        d.paths['/cards'].post['x-client'].method = 'constructor';
        d.components.schemas.class = { type: 'string' };
        d.components.schemas.Card.properties.x = { $ref: '#/components/schemas/class' };
        const item = d.paths['/orders/{uuid}'];
        delete d.paths['/orders/{uuid}'];
        d.paths['/orders/{u: any = console.log(1), uuid}'] = item;
        item.parameters[0].name = 'u: any = console.log(1), uuid';
      },
      ['#/paths/~1cards/post/x-client/method', '#/components/schemas/class', '#/paths/~1orders~1{u: any = console.log(1), uuid}'],
    ],
  ];

  it('exits 2 with file, pointer and reason for hostile names', async () => {
    const runs = await Promise.all(
      REFUSED.map(([name, edit], i) =>
        run(process.execPath, [BIN, 'client', '--spec', writeCopy(`cli-${i}`, edit), '--out', path.join(tmp.dir, 'out')], { cwd: ROOT }).then(
          () => ({ code: 0, stderr: `${name}: accepted` }),
          (e: { code: number; stderr: string }) => e,
        ),
      ),
    );
    for (const [i, [name, , pointers]] of REFUSED.entries()) {
      expect(runs[i]!.code, `${name}: ${runs[i]!.stderr}`).toBe(2);
      for (const pointer of pointers) expect(runs[i]!.stderr, name).toContain(`openapi.yaml ${pointer}: `);
    }
  });

  it('lint flags every hostile name and text case with its pointer', async () => {
    const file = writeCopy('lint', (d) => {
      d.info.title = "*/ console.log('x'); /*";
      d.info.version = "'; process.exit(1); '";
      d.paths['/cards'].get.tags = ['Cards */'];
      d.paths['/cards'].get.security = [{ bearerAuth: ['cards.read\u2028'] }];
      d.paths['/orders/{uuid}'].get['x-client'].waiter = 'then';
      d.paths['/cards'].post['x-client'].method = 'constructor';
      d.components.schemas.CardStatus.enum.push('x\r');
      d.components.schemas.CardStatus['x-enumDescriptions']['x\r'] = '';
      d.components.schemas.Card.properties['a`${b}`'] = { type: 'string' };
      d.components.schemas.Card.properties.toString = { type: 'string' };
      const ping = d.paths['/ping'];
      delete d.paths['/ping'];
      d.paths["/ping'; x"] = ping;
    });
    const report = await lintSpec(file);
    const ours = report.problems.filter((p) => p.source === 'gen-card-api' && p.severity === 'error');
    for (const pointer of [
      '#/info/title',
      '#/info/version',
      '#/paths/~1cards/get/tags/0',
      '#/paths/~1cards/get/security/0/bearerAuth/0',
      '#/paths/~1orders~1{uuid}/get/x-client/waiter',
      '#/paths/~1cards/post/x-client/method',
      '#/components/schemas/CardStatus/enum/',
      '#/components/schemas/CardStatus/x-enumDescriptions/x\r',
      '#/components/schemas/Card/properties/a`${b}`',
      '#/components/schemas/Card/properties/toString',
      "#/paths/~1ping'; x",
    ]) {
      expect(ours.some((p) => p.pointer.startsWith(pointer)), `${pointer} in ${ours.map((p) => `${p.pointer} ${p.message}`).join('\n')}`).toBe(true);
    }
    expect(report.errors).toBeGreaterThanOrEqual(ours.length);
  });

  it('TEXT_FIELDS and NAME_FIELDS cover every field the issue names', () => {
    const fields = [...TEXT_FIELDS, ...NAME_FIELDS].map((f) => f.field).join(' | ');
    for (const word of ['title', 'version', 'tags', 'scopes', 'summaries', 'descriptions', 'enum values', 'x-enumDescriptions', 'property name', 'path key', 'path parameter name', 'x-client.resource', 'x-client.method', 'x-client.waiter', 'schema name', 'webhook name', 'example']) {
      expect(fields).toContain(word);
    }
  });
});

/**
 * Issue 31: a generated server that can start. A `format` ajv-formats does not define is registered as a no-op
 * (the server starts and validates everything else), and a `pattern` the runtime cannot compile is refused at
 * generation time by `server`, `all` and `check`, and reported by lint, through one function
 * (model/schema-runtime.ts).
 */
describe('the generated server can start', () => {
  const copy = (name: string, edit: (doc: any) => void): string => {
    const dir = path.join(tmp.dir, name);
    mkdirSync(dir, { recursive: true });
    return writeSpecCopy(dir, edit);
  };

  it('format: iban generates a server that starts on loopback and validates a request', async () => {
    const spec = copy('iban', (d) => {
      d.components.schemas.CreateCardRequest.properties.payout_iban = { type: 'string', format: 'iban', maxLength: 34 };
      d.components.schemas.Card.properties.iban = { type: ['string', 'null'], format: 'iban' };
    });
    const out = path.join(tmp.dir, 'iban', 'out');
    await run(process.execPath, [BIN, 'server', spec, '--out', out], { cwd: ROOT });
    const src = path.join(out, 'packages/server/src');
    expect(readFileSync(path.join(src, 'plugin.gen.ts'), 'utf8')).toContain("formats: ['iban']");
    const server = (await import(pathToFileURL(path.join(src, 'index.ts')).href)) as typeof import('../../packages/server/src/index.js');
    // Without the registration Ajv's strict mode refuses the schema: the no-op is what lets the server start.
    expect(() => server.createSchemaValidators([]).request({ type: 'string', format: 'iban' }, 'body')).toThrow(/unknown format "iban"/);

    const seen: unknown[] = [];
    const handlers: Record<string, unknown> = {};
    for (const route of server.routes) handlers[route.operationId] = () => Promise.reject(new server.ApiError(501, 'api.not_implemented', 'not here'));
    handlers['createCard'] = ({ body }: { body: unknown }) => {
      seen.push(body);
      return { status: 202, body: { data: { uuid: '9b2e4c71-3a5d-4f86-b0c9-2d7e1f4a6b35', type: 'issue_card', status: 'pending', related_card_uuid: null, held_amount: '10.00', currency: 'USD', created_at: '2026-11-20T10:00:00Z', failure_reason: null } } };
    };
    const app = Fastify();
    const auth = { workspace: { id: 1, status: 'active' }, abilities: ['cards.write'], ipAllowlist: [] };
    await app.register(server.cardApi as never, { prefix: '/api/v1', handlers, authenticate: () => auth } as never);
    const base = `${await app.listen({ host: '127.0.0.1', port: 0 })}/api/v1`;
    try {
      const post = (body: object) => fetch(`${base}/cards`, { method: 'POST', headers: { authorization: 'Bearer t', 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const valid = { card_product_id: 2, initial_topup_amount: '10.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' };
      const accepted = await post({ ...valid, payout_iban: 'DE89 3704 0044 0532 0130 00' });
      expect(accepted.status, await accepted.clone().text()).toBe(202);
      expect(seen).toEqual([{ ...valid, payout_iban: 'DE89 3704 0044 0532 0130 00' }]);
      // The rest of the schema still holds around the no-op format.
      const refused = await post({ ...valid, payout_iban: 'X'.repeat(35) });
      expect(refused.status).toBe(422);
      expect(((await refused.json()) as { error: { errors: Record<string, string[]> } }).error.errors).toHaveProperty('payout_iban');
      expect(seen).toHaveLength(1);
    } finally {
      await app.close();
    }
  });

  it('refuses a pattern the runtime cannot compile: server, all and check exit 2 with file, pointer and reason; lint says the same', async () => {
    const spec = copy('pattern', (d) => {
      d.components.schemas.CreateCardRequest.properties.purpose.pattern = '[\\w-.]+';
    });
    const pointer = '#/components/schemas/CreateCardRequest/properties/purpose/pattern';
    const runs = await Promise.all(
      [
        ['server', spec, '--out', path.join(tmp.dir, 'pattern', 'server')],
        ['all', spec, '--out', path.join(tmp.dir, 'pattern', 'all')],
        ['check', spec],
      ].map((args) => run(process.execPath, [BIN, ...args], { cwd: ROOT }).then(() => ({ code: 0, stderr: 'accepted' }), (e: { code: number; stderr: string }) => e)),
    );
    for (const result of runs) {
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toContain(`openapi.yaml ${pointer}: the pattern "[\\\\w-.]+" does not compile as the generated server compiles it (a JavaScript RegExp with the u flag, as Ajv does)`);
    }
    expect(existsSync(path.join(tmp.dir, 'pattern', 'server'))).toBe(false);
    const report = await lintSpec(spec);
    const ours = report.problems.find((p) => p.rule === 'server-runtime');
    expect(ours).toMatchObject({ severity: 'error', pointer });
    expect(ours!.message).toBe(patternProblem('[\\w-.]+'));
  });

  it('fast-check: a pattern is refused exactly when Ajv, as the runtime configures it, cannot compile it', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    const unit = fc.constantFrom(...'[]{}()\\-.w*+?^$|u0123ap/'.split(''), '\\u{1F600}', '\\p{L}', '(?<n>', '\\k<n>');
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 12 }), (pattern) => {
        let compiles = true;
        try {
          ajv.compile({ type: 'string', pattern });
        } catch {
          compiles = false;
        }
        expect(patternProblem(pattern) === null, pattern).toBe(compiles);
        expect(schemaRuntimeReport({ components: { schemas: { S: { type: 'string', pattern } } } }).patternProblems.length === 0, pattern).toBe(compiles);
      }),
      { numRuns: 300 },
    );
  });

  it('collects the formats ajv-formats does not define, and ignores those in examples and x- data', () => {
    const report = schemaRuntimeReport({
      components: { schemas: { A: { type: 'object', properties: { a: { type: 'string', format: 'iban' }, b: { type: 'string', format: 'uuid' }, c: { type: 'string', format: 'bic' } }, example: { format: 'not-a-schema' }, 'x-data': { format: 'nor-this' } } } },
    });
    expect(report.unknownFormats).toEqual(['bic', 'iban']);
  });

  it('knows exactly the formats the runtime\'s ajv-formats registers (the list is read from its formats module alone)', () => {
    // Every format a server built with ajv-formats accepts, and nothing else: the runtime's own Ajv, as validation.ts builds it.
    const ajv = new Ajv2020({ strict: true });
    formats.default(ajv);
    const names = ['date', 'time', 'date-time', 'iso-time', 'iso-date-time', 'duration', 'uri', 'uri-reference', 'uri-template', 'url', 'email', 'hostname', 'ipv4', 'ipv6', 'regex', 'uuid', 'json-pointer', 'json-pointer-uri-fragment', 'relative-json-pointer', 'byte', 'int32', 'int64', 'float', 'double', 'password', 'binary', 'iban', 'bic', 'money', 'Date'];
    for (const format of names) {
      let runtimeKnows = true;
      try {
        ajv.compile({ type: 'string', format });
      } catch {
        runtimeKnows = false;
      }
      const report = schemaRuntimeReport({ components: { schemas: { S: { type: 'string', format } } } });
      expect(report.unknownFormats.length === 0, format).toBe(runtimeKnows);
    }
  });
});
