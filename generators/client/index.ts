/**
 * Target `client`: @card-api/client, resource classes generated from the model over the runtime in
 * templates/client. With `typesImport: 'local'` the output is self-contained (types vendored beside it).
 */
import { StructureKind, type ImportDeclarationStructure, type StatementStructures } from 'ts-morph';
import { copyTemplates } from '../core/templates.js';
import { printFile } from '../core/print.js';
import type { GeneratedFile, RenderOptions, Target } from '../core/target.js';
import { compareStrings, type ApiModel } from '../model/index.js';
import { renderTypesFile } from '../types/index.js';
import { referencedTypes } from './operation.js';
import { transformClientClass, transformDescriptors, transformResources } from './resources.js';

const RUNTIME_IMPORTS = ['ClientCore', 'waitForOrder', 'PagePromise'];
const RUNTIME_TYPES = ['ClientOptions', 'ListOptions', 'OperationDescriptor', 'RequestOptions', 'WaitOptions', 'WithResponse', 'WriteOptions'];

/** The generated resources file of a model. */
export function renderClientFile(model: ApiModel, typesModule: string): string {
  const types = [...new Set(model.operations.flatMap(referencedTypes))].sort(compareStrings);
  const imports: ImportDeclarationStructure[] = [
    {
      kind: StructureKind.ImportDeclaration,
      moduleSpecifier: './runtime/index.js',
      namedImports: [...RUNTIME_IMPORTS.map((name) => ({ name })), ...RUNTIME_TYPES.map((name) => ({ name, isTypeOnly: true }))].sort((a, b) => compareStrings(a.name, b.name)),
    },
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: typesModule, isTypeOnly: true, namedImports: types.map((name) => ({ name })) },
  ];
  const statements: StatementStructures[] = [...imports, transformDescriptors(model), ...transformResources(model), transformClientClass(model)];
  return printFile(statements);
}

/** Renders the client into `dir` (`packages/client/src` or a user's `--out`). */
export async function renderClient(model: ApiModel, options: RenderOptions, dir: string): Promise<GeneratedFile[]> {
  const local = options.typesImport === 'local';
  const files: GeneratedFile[] = [
    { path: `${dir}/client.gen.ts`, contents: renderClientFile(model, local ? './types.gen.js' : '@card-api/types') },
    {
      path: `${dir}/index.ts`,
      contents: printFile([
        "export * from './client.gen.js';",
        "export * from './runtime/index.js';",
        local ? "export * from './types.gen.js';" : "export * from '@card-api/types';",
      ]),
    },
    ...(await copyTemplates('client', dir)),
  ];
  if (local) files.push({ path: `${dir}/types.gen.ts`, contents: await renderTypesFile(model) });
  return files;
}

export const clientTarget: Target = {
  name: 'client',
  packageDir: 'packages/client',
  render: (model, options) => renderClient(model, options, 'packages/client/src'),
};
