/**
 * Validates values against the spec with an OpenAPI 3.1-aware validator: Ajv in JSON Schema 2020-12 mode
 * (type arrays, const, unevaluatedProperties), every component schema registered under its `$ref` URI.
 * `strict: true` closes every object schema that lists properties, so an undeclared field (a leaked PAN,
 * a typo) fails instead of passing silently. The validator is the one `gen-card-api verify` ships
 * (packages/cli/src/verify/spec.ts); this helper only points it at the repository's spec.
 */
import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import { SchemaValidator } from '../../packages/cli/src/verify/spec.js';
import { SPEC_PATH } from './spec.js';

export class SpecValidator extends SchemaValidator {
  /** `yaml`: another document than the public spec (the bundled sandbox control document), as YAML text. */
  constructor(options: { strict?: boolean; yaml?: string } = {}) {
    super(parse(options.yaml ?? readFileSync(SPEC_PATH, 'utf8')) as Record<string, any>, options);
  }
}
