/** The openapi-typescript part of @card-api/types: `paths`, `webhooks`, `components`, `operations`. */
import openapiTS, { astToString } from 'openapi-typescript';
import type { ApiModel } from '../model/index.js';

const cache = new WeakMap<ApiModel, Promise<string>>();

/** Runs openapi-typescript on the bundled document once per model. */
export function renderOpenapiTypescript(model: ApiModel): Promise<string> {
  let text = cache.get(model);
  if (!text) {
    text = openapiTS(structuredClone(model.document) as never, {
      alphabetize: true,
      defaultNonNullable: false,
      silent: true,
    }).then((ast) => astToString(ast).replace(/\r\n/g, '\n'));
    cache.set(model, text);
  }
  return text;
}
