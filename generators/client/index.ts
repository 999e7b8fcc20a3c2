/**
 * Target `client`: @card-api/client, resource classes generated from the model over the runtime in
 * templates/client. With `typesImport: 'local'` the output is self-contained (types vendored beside it).
 */
import type { ImportDeclarationStructure, StatementStructures } from 'ts-morph';
import { StructureKind } from '../core/ts-morph.js';
import { copyTemplates } from '../core/templates.js';
import { identifier } from '../core/escape.js';
import { printFile } from '../core/print.js';
import { generatedHeader, type GeneratedFile, type RenderOptions, type Target } from '../core/target.js';
import { compareStrings, type ApiModel } from '../model/index.js';
import { renderTypesFile } from '../types/index.js';
import { referencedRuntimeTypes, referencedTypes } from './operation.js';
import { transformClientClass, transformDescriptors, transformResources } from './resources.js';

const RUNTIME_IMPORTS = ['ClientCore', 'waitForOrder', 'PagePromise'];
const RUNTIME_TYPES = ['ClientOptions', 'ListOptions', 'OperationDescriptor', 'RequestOptions', 'WaitOptions', 'WithResponse', 'WriteOptions'];

/** The generated resources file of a model. */
export function renderClientFile(model: ApiModel, typesModule: string): string {
  const types = [...new Set(model.operations.flatMap(referencedTypes))].sort(compareStrings);
  const runtimeTypes = [...new Set([...RUNTIME_TYPES, ...model.operations.flatMap(referencedRuntimeTypes)])];
  const imports: ImportDeclarationStructure[] = [
    {
      kind: StructureKind.ImportDeclaration,
      moduleSpecifier: './runtime/index.js',
      namedImports: [...RUNTIME_IMPORTS.map((name) => ({ name })), ...runtimeTypes.map((name) => ({ name, isTypeOnly: true }))].sort((a, b) => compareStrings(a.name, b.name)),
    },
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: typesModule, isTypeOnly: true, namedImports: types.map((name) => ({ name: identifier(name, 'type') })) },
  ];
  const statements: StatementStructures[] = [...imports, transformDescriptors(model), ...transformResources(model), transformClientClass(model)];
  return printFile(statements, { header: generatedHeader(model.specName) });
}

/**
 * What a vendored copy needs, on line 2 onwards of its `index.ts`: every claim here is compiled by
 * test/generators/vendored-client.test.ts.
 */
export const VENDORED_CLIENT_NOTE = `/**
 * A self-contained typed client of the Card Issuing API, written by \`gen-card-api client --out\`: it imports
 * nothing from @card-api/*. \`import { CardApiClient } from './<this folder>/index.js'\`.
 *
 * Needs at run time: Node.js 20 or later (or any runtime with fetch) and the \`openapi-fetch\` package.
 * Compiles with TypeScript 5.9 under \`strict\` (\`exactOptionalPropertyTypes\` too) and \`skipLibCheck: false\`, with
 * \`module\` node16, nodenext or esnext + \`moduleResolution: bundler\`, given:
 * - \`target\` ES2022 or later (the runtime uses #private fields and bigint literals). \`module\` node16 and nodenext
 *   imply it; with \`moduleResolution: bundler\` set \`"target": "ES2022"\` yourself (TypeScript's own default, ES5, fails);
 * - fetch types (Request, Response, Headers, AbortSignal, ReadableStream): the DOM lib, or \`@types/node\`
 *   with \`lib: ["ES2022"]\` or later.
 */`;

/** Renders the client into `dir` (`packages/client/src` or a user's `--out`). */
export async function renderClient(model: ApiModel, options: RenderOptions, dir: string): Promise<GeneratedFile[]> {
  const local = options.typesImport === 'local';
  const header = generatedHeader(model.specName);
  const files: GeneratedFile[] = [
    { path: `${dir}/client.gen.ts`, contents: renderClientFile(model, local ? './types.gen.js' : '@card-api/types') },
    {
      path: `${dir}/index.ts`,
      contents: printFile(
        [
          "export * from './client.gen.js';",
          "export * from './runtime/index.js';",
          local ? "export * from './types.gen.js';" : "export * from '@card-api/types';",
        ],
        local ? { header, prefix: VENDORED_CLIENT_NOTE } : { header },
      ),
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
