/** The openapi-typescript part of @card-api/types: `paths`, `webhooks`, `components`, `operations`. */
import { createRequire } from 'node:module';
import type * as OpenapiTypescript from 'openapi-typescript';
import type { ApiModel } from '../model/index.js';

const cache = new WeakMap<ApiModel, Promise<string>>();

/**
 * openapi-typescript's CommonJS build, loaded on first use. Its ESM build imports `typescript` as ESM, which makes
 * Node run syntax detection and cjs-module-lexer over TypeScript's 9 MB before compiling it (about 0.4 s of CPU
 * more than `require`, measured from the installed CLI); the CommonJS build requires it. Same code, same output.
 */
let loaded: typeof OpenapiTypescript | undefined;
function openapiTypescript(): typeof OpenapiTypescript {
  loaded ??= createRequire(import.meta.url)('openapi-typescript') as typeof OpenapiTypescript;
  return loaded;
}

/** Runs openapi-typescript on the bundled document once per model. */
export function renderOpenapiTypescript(model: ApiModel): Promise<string> {
  let text = cache.get(model);
  if (!text) {
    const { default: openapiTS, astToString } = openapiTypescript();
    text = openapiTS(structuredClone(model.document) as never, {
      alphabetize: true,
      defaultNonNullable: false,
      silent: true,
    }).then((ast) => astToString(ast).replace(/\r\n/g, '\n'));
    cache.set(model, text);
  }
  return text;
}
