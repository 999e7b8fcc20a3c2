/**
 * The one context every server transform receives: the model, the render options and the `$id` under which
 * the spec's component schemas are shared by all routes.
 */
import { generatedHeader, type RenderOptions } from '../core/target.js';
import { schemaRuntimeReport, SpecError, SpecErrors, type ApiModel } from '../model/index.js';
import { displayPath } from '../model/load.js';

/** Default `$id` of the shared schema set; routes refer to `card-api.json#/$defs/<Name>`. */
export const SCHEMA_ID = 'card-api.json';

export interface ServerContext {
  model: ApiModel;
  options: RenderOptions;
  /** Where generated code imports `operations` from. */
  typesModule: string;
  /** Where generated code imports the runtime from: the copied `./runtime/index.js`, or `@card-api/server`. */
  runtimeModule: string;
  /** Name of the generated handlers interface. */
  handlersName: string;
  /** `$id` of the shared component schema set (distinct per API served side by side). */
  schemaId: string;
  /** Line 1 of every file rendered: the generated-file header naming the document. */
  header: string;
  /** Formats the schemas use that the runtime's ajv-formats does not define: registered as no-ops (model/schema-runtime.ts). */
  customFormats: string[];
}

/** How a second API served on the same runtime (the sandbox's control API) differs from the default. */
export interface ServerContextOverrides {
  runtimeModule?: string;
  handlersName?: string;
  schemaId?: string;
  header?: string;
}

/** Resolves the options once, as openapi-typescript's GlobalContext does. */
export function createContext(model: ApiModel, options: RenderOptions, overrides: ServerContextOverrides = {}): ServerContext {
  // A pattern the runtime cannot compile would fail the server at start: refused here, as lint reports it.
  const runtime = schemaRuntimeReport(model.document);
  if (runtime.patternProblems.length > 0) throw new SpecErrors(runtime.patternProblems.map((p) => new SpecError(displayPath(model.specFile), p.pointer, p.reason)));
  return {
    customFormats: runtime.unknownFormats,
    model,
    options,
    typesModule: options.typesImport === 'local' ? './types.gen.js' : '@card-api/types',
    runtimeModule: overrides.runtimeModule ?? './runtime/index.js',
    handlersName: overrides.handlersName ?? 'CardApiHandlers',
    schemaId: overrides.schemaId ?? SCHEMA_ID,
    header: overrides.header ?? generatedHeader(model.specName),
  };
}

/** The shared-schema reference of a component schema. */
export function componentRef(ctx: ServerContext, name: string): string {
  return `${ctx.schemaId}#/$defs/${name}`;
}

/** A problem found while transforming, located by the JSON pointer of the node. */
export function fail(ctx: ServerContext, at: string, reason: string): never {
  throw new SpecError(ctx.model.specFile, at, reason);
}
