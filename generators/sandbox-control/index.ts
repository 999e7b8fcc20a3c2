/**
 * Target `sandbox-control`: the sandbox's control API (`spec/sandbox/control.yaml`, kept out of the public
 * contract) rendered by the server generator's own transforms into `packages/sandbox/src/control/`: its types,
 * route table, handler interface and bundled document. The sandbox serves it with the runtime of
 * `@card-api/server` (imported, not copied a second time), so the control API gets the same validation,
 * auth, error bodies and `/docs` as the public API.
 */
import { CONTROL_SPEC } from '../core/assets.js';
import { generatedHeader, type GeneratedFile, type Target } from '../core/target.js';
import type { ApiModel } from '../model/index.js';
import { createContext } from '../server/context.js';
import { renderHandlersFile } from '../server/handlers-file.js';
import { renderRoutesFile } from '../server/routes-file.js';
import { renderSpecFile } from '../server/spec-file.js';
import { renderTypesFile } from '../types/index.js';

export { CONTROL_SPEC } from '../core/assets.js';

const DIR = 'packages/sandbox/src/control';

/** Renders the control API's generated sources; the header names the control document, not the card spec. */
export async function renderSandboxControl(model: ApiModel): Promise<GeneratedFile[]> {
  const header = generatedHeader(model.specName);
  const ctx = createContext(model, { typesImport: 'local' }, { runtimeModule: '@card-api/server', handlersName: 'SandboxControlHandlers', schemaId: 'sandbox-control.json', header });
  return [
    { path: `${DIR}/handlers.gen.ts`, contents: renderHandlersFile(ctx) },
    { path: `${DIR}/routes.gen.ts`, contents: renderRoutesFile(ctx) },
    { path: `${DIR}/spec.gen.ts`, contents: renderSpecFile(ctx) },
    { path: `${DIR}/types.gen.ts`, contents: await renderTypesFile(model, { header }) },
  ];
}

export const sandboxControlTarget: Target = {
  name: 'sandbox-control',
  packageDir: 'packages/sandbox',
  spec: CONTROL_SPEC,
  render: (model) => renderSandboxControl(model),
};
