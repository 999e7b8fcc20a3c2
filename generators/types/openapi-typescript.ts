/** The openapi-typescript part of @card-api/types: `paths`, `webhooks`, `components`, `operations`. */
import { createRequire } from 'node:module';
import type * as OpenapiTypescript from 'openapi-typescript';
import type { ApiModel } from '../model/index.js';
import { createConfig } from '../model/redocly.js';

const cache = new WeakMap<ApiModel, Promise<string>>();

/**
 * openapi-typescript's CommonJS build, loaded on first use. Its ESM build imports `typescript` as ESM, which makes
 * Node run syntax detection and cjs-module-lexer over TypeScript's 9 MB before compiling it (about 0.4 s of CPU
 * more than `require`, measured from the installed CLI); the CommonJS build requires it. Same code, same output.
 * `#openapi-typescript` is the package in the checkout and, in the published CLI, its bundle built against the
 * CLI's vendored Redocly (model/redocly.ts), so one copy of that engine is loaded.
 */
let loaded: typeof OpenapiTypescript | undefined;
function openapiTypescript(): typeof OpenapiTypescript {
  loaded ??= createRequire(import.meta.url)('#openapi-typescript') as typeof OpenapiTypescript;
  return loaded;
}

/** The options @card-api/types is generated with. */
const OPTIONS = { alphabetize: true, defaultNonNullable: false, silent: true } as const satisfies OpenapiTypescript.OpenAPITSOptions;

/**
 * `openapiTS(document, OPTIONS)` without its first step. `openapiTS` starts by linting and bundling its input with
 * Redocly (`validateAndBundle`), which here is the model's document, already bundled by the same Redocly and
 * validated by the loader: at 1,500 operations that second pass was half of openapi-typescript's time. What
 * follows is `openapiTS`'s own context (openapi-typescript 7.13, `src/index.ts`) over that document, and its
 * transform; `GlobalContext`'s type makes a field a new version adds a compile error here, and `gen-card-api check`
 * compares the output byte for byte.
 */
async function transformDocument(document: OpenapiTypescript.OpenAPI3): Promise<ReturnType<typeof OpenapiTypescript.transformSchema>> {
  const oats = openapiTypescript();
  const ctx: OpenapiTypescript.GlobalContext = {
    additionalProperties: false,
    alphabetize: OPTIONS.alphabetize,
    arrayLength: false,
    defaultNonNullable: OPTIONS.defaultNonNullable,
    discriminators: oats.scanDiscriminators(document, OPTIONS),
    emptyObjectsUnknown: false,
    enum: false,
    enumValues: false,
    conditionalEnums: false,
    dedupeEnums: false,
    excludeDeprecated: false,
    exportType: false,
    immutable: false,
    rootTypes: false,
    rootTypesNoSchemaPrefix: false,
    rootTypesKeepCasing: false,
    injectFooter: [],
    pathParamsAsTypes: false,
    postTransform: undefined,
    propertiesRequiredByDefault: false,
    // Read by no transform; openapiTS passes the config it linted with.
    redoc: await createConfig({}, { extends: [] }),
    silent: OPTIONS.silent,
    inject: undefined,
    transform: undefined,
    transformProperty: undefined,
    makePathsEnum: false,
    generatePathParams: false,
    readWriteMarkers: false,
    resolve($ref) {
      return oats.resolveRef(document, $ref, { silent: OPTIONS.silent });
    },
  };
  return oats.transformSchema(document, ctx);
}

/** Runs openapi-typescript on the bundled document once per model. */
export function renderOpenapiTypescript(model: ApiModel): Promise<string> {
  let text = cache.get(model);
  if (!text) {
    // A copy: scanDiscriminators writes the mapped values into the schemas a discriminator maps to.
    text = transformDocument(structuredClone(model.document) as unknown as OpenapiTypescript.OpenAPI3).then((ast) => openapiTypescript().astToString(ast).replace(/\r\n/g, '\n'));
    cache.set(model, text);
  }
  return text;
}
