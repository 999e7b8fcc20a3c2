import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModel, SpecError, SpecErrors } from '../../generators/model/index.js';
import { tempDir, writeSpecCopy } from '../helpers/spec.js';

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
  ['dangling $ref', (d) => (d.paths['/wallet'].get.responses['200'].content['application/json'].schema.properties.data.$ref = '#/components/schemas/Nope'), '#/paths/~1wallet/get/responses/200/content/application~1json/schema/properties/data', /resolve/i],
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
