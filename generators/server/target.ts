/**
 * Target `server`: @card-api/server, a Fastify plugin generated from the model over the runtime in
 * templates/server. Generated code holds only data and types (route table, schemas, handler interface, the
 * spec text); behaviour lives in the runtime. With `typesImport: 'local'` the types are vendored beside it.
 */
import { printFile } from '../core/print.js';
import type { GeneratedFile, RenderOptions, Target } from '../core/target.js';
import { copyTemplates } from '../core/templates.js';
import type { ApiModel } from '../model/index.js';
import { renderTypesFile } from '../types/index.js';
import { createContext } from './context.js';
import { renderHandlersFile } from './handlers-file.js';
import { renderPluginFile } from './plugin-file.js';
import { renderRoutesFile } from './routes-file.js';
import { renderSpecFile } from './spec-file.js';

/** Renders the server package's sources into `dir` (`packages/server/src` or a user's `--out`). */
export async function renderServer(model: ApiModel, options: RenderOptions, dir: string): Promise<GeneratedFile[]> {
  const ctx = createContext(model, options);
  const local = options.typesImport === 'local';
  const files: GeneratedFile[] = [
    { path: `${dir}/handlers.gen.ts`, contents: renderHandlersFile(ctx) },
    {
      path: `${dir}/index.ts`,
      contents: printFile([
        "export * from './handlers.gen.js';",
        "export * from './plugin.gen.js';",
        "export * from './routes.gen.js';",
        "export * from './runtime/index.js';",
        "export * from './spec.gen.js';",
      ], { header: ctx.header }),
    },
    { path: `${dir}/plugin.gen.ts`, contents: renderPluginFile(ctx) },
    { path: `${dir}/routes.gen.ts`, contents: renderRoutesFile(ctx) },
    { path: `${dir}/spec.gen.ts`, contents: renderSpecFile(ctx) },
    ...(await copyTemplates('server', dir)),
  ];
  if (local) files.push({ path: `${dir}/types.gen.ts`, contents: await renderTypesFile(model) });
  return files;
}

export const serverTarget: Target = {
  name: 'server',
  packageDir: 'packages/server',
  render: (model, options) => renderServer(model, options, 'packages/server/src'),
};
