/**
 * `gen-card-api server --scaffold <dir>`: one handler file per operation, typed against `CardApiHandlers` and
 * throwing a 501 until implemented, plus an `index.ts` that collects them. These files are the user's from
 * then on: `writeScaffold` never overwrites one, so re-running after a spec change only adds the new
 * operations' files, and the compiler flags the handlers whose types the spec changed.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { StatementStructures } from 'ts-morph';
import { StructureKind } from '../core/ts-morph.js';
import { docText, identifier, stringLiteral } from '../core/escape.js';
import { printFile } from '../core/print.js';
import type { GeneratedFile } from '../core/target.js';
import type { ApiModel, OperationModel } from '../model/index.js';
import { exportedConst } from './literal.js';

/** First line of every scaffolded file: unmarked as generated, since it is meant to be edited. */
export const SCAFFOLD_HEADER = '// Scaffolded by gen-card-api server --scaffold. Yours to edit: the generator never overwrites this file.';

/** The parts of the input this operation has, named in the handler's doc so the author sees what there is. */
function inputParts(op: OperationModel): string {
  const parts: string[] = [];
  if (op.pathParams.length > 0) parts.push('params');
  if (op.queryParams.length > 0) parts.push('query');
  if (op.headerParams.length > 0) parts.push('headers');
  if (op.requestBody) parts.push('body');
  parts.push('auth');
  return parts.map((p) => `\`${p}\``).join(', ');
}

function handlerFile(op: OperationModel): string {
  const statements: Array<string | StatementStructures> = [
    {
      kind: StructureKind.ImportDeclaration,
      moduleSpecifier: '@card-api/server',
      namedImports: [{ name: 'ApiError' }, { name: 'CardApiHandlers', isTypeOnly: true }],
    },
    exportedConst(
      `\`${op.method.toUpperCase()} ${op.path}\`: ${docText(op.summary)}.\n\nThe input carries ${inputParts(op)}.`,
      op.operationId,
      `CardApiHandlers[${stringLiteral(op.operationId)}]`,
      `async (_input) => {\n  throw new ApiError(501, 'api.not_implemented', ${stringLiteral(`${op.operationId} is not implemented yet.`)});\n}`,
    ),
  ];
  return printFile(statements, { header: SCAFFOLD_HEADER });
}

function indexFile(model: ApiModel): string {
  const ids = model.operations.map((op) => identifier(op.operationId, 'binding'));
  const statements: Array<string | StatementStructures> = [
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: '@card-api/server', isTypeOnly: true, namedImports: [{ name: 'CardApiHandlers' }] },
    ...ids.map((id): string | StatementStructures => ({ kind: StructureKind.ImportDeclaration, moduleSpecifier: `./${id}.js`, namedImports: [{ name: id }] })),
    exportedConst('Every handler, for `app.register(cardApi, { handlers, authenticate })`.', 'handlers', 'CardApiHandlers', `{\n${ids.map((id) => `  ${id},`).join('\n')}\n}`),
  ];
  return printFile(statements, { header: SCAFFOLD_HEADER });
}

/** The scaffold files for `dir` (paths are `dir/<operationId>.ts` and `dir/index.ts`). Pure. */
export function scaffoldHandlers(model: ApiModel, dir: string): GeneratedFile[] {
  const base = dir.split(path.sep).join('/').replace(/\/+$/, '');
  return [
    ...model.operations.map((op) => ({ path: path.posix.join(base, `${op.operationId}.ts`), contents: handlerFile(op) })),
    { path: path.posix.join(base, 'index.ts'), contents: indexFile(model) },
  ];
}

export interface ScaffoldResult {
  written: string[];
  /** Files that already existed and were left untouched. */
  skipped: string[];
}

/**
 * Writes scaffold files, never overwriting: a file that exists is skipped and reported. Paths are resolved
 * against `cwd`, and every one must lie inside `dir`.
 */
export async function writeScaffold(dir: string, files: readonly GeneratedFile[], cwd: string = process.cwd()): Promise<ScaffoldResult> {
  const root = path.resolve(cwd, dir);
  const result: ScaffoldResult = { written: [], skipped: [] };
  for (const file of files) {
    const full = path.resolve(cwd, file.path);
    if (full !== root && !full.startsWith(`${root}${path.sep}`)) throw new Error(`scaffold file ${file.path} is outside ${dir}`);
    await mkdir(path.dirname(full), { recursive: true });
    try {
      // 'wx' fails if the file exists, atomically: no window between a check and the write.
      await writeFile(full, file.contents, { flag: 'wx' });
      result.written.push(file.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      result.skipped.push(file.path);
    }
  }
  return result;
}
