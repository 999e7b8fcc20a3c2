import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModel, SpecError, SpecErrors } from '../../generators/model/index.js';
import { ROOT, tempDir, writeSpecCopy } from '../helpers/spec.js';

const tmp = tempDir('model');
afterAll(tmp.cleanup);

async function problems(file: string): Promise<SpecError[]> {
  try {
    await loadModel(file);
  } catch (error) {
    if (error instanceof SpecErrors) return [...error.errors];
    if (error instanceof SpecError) return [error];
    throw error;
  }
  throw new Error('expected the spec to be rejected');
}

/** Table: a broken copy of the spec → the pointer and words its error must carry. */
const CASES: Array<[string, (doc: any) => void, string, RegExp]> = [
  ['missing x-client', (d) => delete d.paths['/cards'].post['x-client'], '#/paths/~1cards/post/x-client', /x-client/],
  ['duplicate client method', (d) => (d.paths['/cards/{uuid}/freeze'].post['x-client'].method = 'unfreeze'), '#/paths/~1cards~1{uuid}~1unfreeze/post/x-client', /cards\.unfreeze/],
  ['operation without a 2xx', (d) => delete d.paths['/wallet'].get.responses['200'], '#/paths/~1wallet/get/responses', /2xx/],
  ['enum value without description', (d) => delete d.components.schemas.CardStatus['x-enumDescriptions'].frozen, '#/components/schemas/CardStatus/x-enumDescriptions', /frozen/],
  ['event const mismatch', (d) => (d.components.schemas.CardFrozenEvent.allOf[1].properties.event.const = 'card.freeze'), '#/components/schemas/CardFrozenEvent', /const: card\.frozen/],
  ['schema of the wrong type (3.1 schema validation)', (d) => (d.paths['/wallet'].get.responses['200'].description = 42), '#/paths/~1wallet/get/responses/200/description', /string/],
  [
    'dangling $ref, named with its target',
    (d) => (d.paths['/wallet'].get.responses['200'].content['application/json'].schema.properties.data.$ref = '#/components/schemas/Nope'),
    '#/paths/~1wallet/get/responses/200/content/application~1json/schema/properties/data',
    /\$ref "#\/components\/schemas\/Nope" \(resolved against \S*openapi\.yaml\) points at nothing: \S*openapi\.yaml has no #\/components\/schemas\/Nope/,
  ],
  [
    'dangling $ref to a file that does not exist',
    (d) => (d.paths['/wallet'].get.responses['200'].content['application/json'].schema.properties.data.$ref = './schemas/missing.yaml#/Wallet'),
    '#/paths/~1wallet/get/responses/200/content/application~1json/schema/properties/data',
    /\$ref "\.\/schemas\/missing\.yaml#\/Wallet" \(resolved against \S*openapi\.yaml\) points at nothing: \S*schemas\/missing\.yaml does not exist/,
  ],
];

describe('a malformed spec gives the file, the JSON pointer and the reason', () => {
  it.each(CASES)('%s', async (name, edit, pointer, reason) => {
    const file = writeSpecCopy(path.join(tmp.dir), edit);
    const found = await problems(file);
    const match = found.find((e) => e.pointer.includes(pointer) || e.message.includes(pointer));
    expect(match, `${name}: got ${found.map((e) => e.message).join(' | ')}`).toBeDefined();
    expect(match!.message).toMatch(reason);
    expect(match!.file).toMatch(/openapi\.yaml$/);
  });

  it('reports a YAML syntax error with its location', async () => {
    const file = path.join(tmp.dir, 'broken.yaml');
    writeFileSync(file, 'openapi: 3.1.0\ninfo: {title: x\npaths: {}\n');
    const [first] = await problems(file);
    expect(first!.file).toMatch(/broken\.yaml$/);
    expect(first!.line).toBe(3);
    expect(first!.message).toMatch(/broken\.yaml:3:1 #: missed comma/);
  });

  it('names the target of a dangling $ref inside another file, with that file and pointer', async () => {
    const dir = path.join(tmp.dir, 'external');
    mkdirSync(path.join(dir, 'schemas'), { recursive: true });
    writeFileSync(path.join(dir, 'schemas/wallet.yaml'), 'Wallet:\n  type: object\n  properties:\n    balance: { $ref: "#/Money" }\n');
    const file = writeSpecCopy(dir, (d) => (d.paths['/wallet'].get.responses['200'].content['application/json'].schema.properties.data.$ref = './schemas/wallet.yaml#/Wallet'));
    const found = await problems(file);
    const match = found.find((e) => e.file.endsWith('schemas/wallet.yaml'));
    expect(match, found.map((e) => e.message).join(' | ')).toBeDefined();
    expect(match!.pointer).toBe('#/Wallet/properties/balance');
    expect(match!.reason).toMatch(/^\$ref "#\/Money" \(resolved against \S*schemas\/wallet\.yaml\) points at nothing: \S*schemas\/wallet\.yaml has no #\/Money$/);
  });

  it('points the missing x-client error at a document that exists', async () => {
    const file = writeSpecCopy(tmp.dir, (d) => delete d.paths['/cards'].post['x-client']);
    const [first] = await problems(file);
    expect(first!.reason).toMatch(/see "Adding an endpoint" in generators\/README\.md/);
    expect(readFileSync(path.join(ROOT, 'generators/README.md'), 'utf8')).toMatch(/^## Adding an endpoint$/m);
  });

  it('reports a missing file', async () => {
    const [first] = await problems(path.join(tmp.dir, 'nope.yaml'));
    expect(first!.reason).toBe('file not found');
  });

  it('refuses an OpenAPI 3.0 document', async () => {
    const file = writeSpecCopy(tmp.dir, (d) => (d.openapi = '3.0.3'));
    const [first] = await problems(file);
    expect(first!.pointer).toBe('#/openapi');
  });
});
