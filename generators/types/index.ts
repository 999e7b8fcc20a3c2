/** Target `types`: @card-api/types, openapi-typescript output plus flat named exports. */
import { printFile } from '../core/print.js';
import { generatedHeader, type GeneratedFile, type Target } from '../core/target.js';
import type { ApiModel } from '../model/index.js';
import { transformAliases } from './aliases.js';
import { renderOpenapiTypescript } from './openapi-typescript.js';

/** The contents of `types.gen.ts` for a model; shared with targets that vendor the types (the client's `--out`). */
export async function renderTypesFile(model: ApiModel, options: { header?: string } = {}): Promise<string> {
  const base = await renderOpenapiTypescript(model);
  return printFile(transformAliases(model), { prefix: base, header: options.header ?? generatedHeader(model.specName) });
}

export const typesTarget: Target = {
  name: 'types',
  packageDir: 'packages/types',
  async render(model: ApiModel): Promise<GeneratedFile[]> {
    return [
      { path: 'packages/types/src/types.gen.ts', contents: await renderTypesFile(model) },
      { path: 'packages/types/src/index.ts', contents: printFile(["export * from './types.gen.js';"], { header: generatedHeader(model.specName) }) },
    ];
  },
};
