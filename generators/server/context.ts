/**
 * The one context every server transform receives: the model, the render options and the `$id` under which
 * the spec's component schemas are shared by all routes.
 */
import type { RenderOptions } from '../core/target.js';
import { SpecError, type ApiModel } from '../model/index.js';

/** `$id` of the shared schema set; routes refer to `card-api.json#/$defs/<Name>`. */
export const SCHEMA_ID = 'card-api.json';

export interface ServerContext {
  model: ApiModel;
  options: RenderOptions;
  /** Where generated code imports `operations` from. */
  typesModule: string;
}

/** Resolves the options once, as openapi-typescript's GlobalContext does. */
export function createContext(model: ApiModel, options: RenderOptions): ServerContext {
  return { model, options, typesModule: options.typesImport === 'local' ? './types.gen.js' : '@card-api/types' };
}

/** The shared-schema reference of a component schema. */
export function componentRef(name: string): string {
  return `${SCHEMA_ID}#/$defs/${name}`;
}

/** A problem found while transforming, located by the JSON pointer of the node. */
export function fail(ctx: ServerContext, at: string, reason: string): never {
  throw new SpecError(ctx.model.specFile, at, reason);
}
