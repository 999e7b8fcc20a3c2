/**
 * Renders the server target into the workspace (`node --import tsx generators/server/generate.ts`), for use
 * until `gen-card-api server` is wired; it writes through the same helper as the CLI.
 */
import { writeFiles } from '../core/files.js';
import { DEFAULT_SPEC, REPO_ROOT } from '../lint/lint-spec.js';
import { loadModel } from '../model/index.js';
import { serverTarget } from './target.js';

const model = await loadModel(DEFAULT_SPEC);
const files = await serverTarget.render(model, { typesImport: 'package' });
const result = await writeFiles(REPO_ROOT, files, [`${serverTarget.packageDir}/src`]);
console.log(`server: ${result.written.length} written, ${result.unchanged.length} unchanged, ${result.removed.length} removed`);
