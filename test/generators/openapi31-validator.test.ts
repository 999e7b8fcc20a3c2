import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, describe, expect, it } from 'vitest';
import { validateOpenApi31 } from '../../generators/model/openapi31-validator.js';
import { loadSpec, SpecErrors } from '../../generators/model/index.js';
import { renderOpenApi31Validator, VALIDATOR_FILE } from '../../scripts/openapi31-validator.js';
import { ROOT, tempDir, writeSpecCopy } from '../helpers/spec.js';

const tmp = tempDir('oas31');
afterAll(tmp.cleanup);

const { document } = await loadSpec(`${ROOT}/spec/openapi.yaml`);

/** Table: a change to the bundled card spec; each copy is judged by both validators. */
const CASES: Array<[string, (doc: any) => void]> = [
  ['the card spec as it is', () => undefined],
  ['a description of the wrong type', (d) => (d.paths['/wallet'].get.responses['200'].description = 42)],
  ['info missing', (d) => delete d.info],
  ['an unknown top-level field', (d) => (d.extra = true)],
  ['a parameter without `in`', (d) => (d.paths['/cards'].get.parameters = [{ name: 'x', schema: { type: 'string' } }])],
  ['an externalDocs url that is not a uri-reference', (d) => (d.externalDocs = { url: 'exa mple' })],
  ['a contact email that is not an email', (d) => (d.info.contact = { email: 'not an email' })],
  ['a response without a description', (d) => delete d.paths['/wallet'].get.responses['200'].description],
  ['a webhook that is not a path item', (d) => (d.webhooks['card.frozen'] = 7)],
];

describe('the precompiled OpenAPI 3.1 validator', () => {
  it('is what scripts/openapi31-validator.ts generates from the installed Ajv and schema', () => {
    // A new Ajv or a new schema of @seriousme/openapi-schema-validator: run `node --import tsx scripts/openapi31-validator.ts`.
    expect(readFileSync(VALIDATOR_FILE, 'utf8') === renderOpenApi31Validator()).toBe(true);
  });

  it.each(CASES)('gives the published validator’s verdict and errors: %s', async (_name, change) => {
    const copy = structuredClone(document) as any;
    change(copy);
    const before = JSON.stringify(copy);
    const ours = validateOpenApi31(copy);
    expect(JSON.stringify(copy), 'never changes the document').toBe(before);
    const theirs = await new Validator().validate(structuredClone(copy));
    expect(ours).toEqual(theirs.valid ? { valid: true } : { valid: false, errors: theirs.errors });
  });

  it('leaves `$ref`s to the loader: Redocly’s bundle refuses one that resolves to nothing, with its target', async () => {
    const file = writeSpecCopy(tmp.dir, (d) => (d.paths['/wallet'].get.responses['200'].content['application/json'].schema = { $ref: '#/components/schemas/Nope' }));
    const error = await loadSpec(file, { cache: false }).then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(SpecErrors);
    expect((error as SpecErrors).errors.map((e) => e.message).join('\n')).toMatch(/\$ref "#\/components\/schemas\/Nope" .* points at nothing/);
  });

  it('refuses every changed copy above', () => {
    for (const [name, change] of CASES.slice(1)) {
      const copy = structuredClone(document) as any;
      change(copy);
      expect(validateOpenApi31(copy).valid, name).toBe(false);
    }
  });
});
