import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../generators/model/index.js';
import { renderOpenapiTypescript } from '../../generators/types/openapi-typescript.js';
import { ROOT, tempDir, writeSpecCopy } from '../helpers/spec.js';

const tmp = tempDir('oats');
afterAll(tmp.cleanup);

/** What `openapiTS` itself prints for the model's document, with the options @card-api/types uses. */
async function throughOpenapiTS(document: unknown): Promise<string> {
  const ast = await openapiTS(structuredClone(document) as never, { alphabetize: true, defaultNonNullable: false, silent: true });
  return astToString(ast).replace(/\r\n/g, '\n');
}

describe('the types target runs openapi-typescript’s transform on the loaded document', () => {
  it.each([
    ['the card spec', path.join(ROOT, 'spec/openapi.yaml')],
    ['the sandbox control document', path.join(ROOT, 'spec/sandbox/control.yaml')],
    ['the released v1 spec', path.join(ROOT, 'spec/released/v1.yaml')],
  ])('and prints what openapiTS prints: %s', async (_name, file) => {
    const model = await loadModel(file);
    expect(await renderOpenapiTypescript(model)).toBe(await throughOpenapiTS(model.document));
  });

  it('and prints what openapiTS prints for a discriminated oneOf, nullable types, enums and a deprecated field', async () => {
    const file = writeSpecCopy(tmp.dir, (doc) => {
      doc.components.schemas.Pet = {
        oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }],
        discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat', dog: '#/components/schemas/Dog' } },
      };
      doc.components.schemas.Cat = { type: 'object', required: ['kind'], properties: { kind: { type: 'string' }, lives: { type: ['integer', 'null'], default: 9 } } };
      doc.components.schemas.Dog = { type: 'object', required: ['kind'], properties: { kind: { type: 'string' }, size: { type: 'string', enum: ['s', 'm', 'l'] }, old: { type: 'string', deprecated: true } } };
      doc.paths['/wallet'].get.responses['200'].content['application/json'].schema.properties.pet = { $ref: '#/components/schemas/Pet' };
    });
    const model = await loadModel(file);
    const text = await renderOpenapiTypescript(model);
    expect(text).toContain('Pet:');
    expect(text).toBe(await throughOpenapiTS(model.document));
  });
});
