/**
 * ts-morph as a printer: targets build plain Structures and print each file once. One in-memory project is
 * shared by the whole run; nothing is type-checked or emitted during generation.
 */
import type { Project as TsMorphProject, StatementStructures } from 'ts-morph';
import { IndentationText, NewLineKind, Project, QuoteKind } from './ts-morph.js';

let project: TsMorphProject | undefined;
let counter = 0;

function sharedProject(): TsMorphProject {
  project ??= new Project({
    useInMemoryFileSystem: true,
    skipFileDependencyResolution: true,
    manipulationSettings: {
      indentationText: IndentationText.TwoSpaces,
      newLineKind: NewLineKind.LineFeed,
      quoteKind: QuoteKind.Single,
      useTrailingCommas: true,
    },
  });
  return project;
}

/**
 * Prints statements as one file, with `header` on line 1 (`generatedHeader(model.specName)` for generated
 * files) and an optional raw prefix after it.
 */
export function printFile(statements: ReadonlyArray<string | StatementStructures>, options: { header: string; prefix?: string }): string {
  const p = sharedProject();
  counter += 1;
  const file = p.createSourceFile(`/print-${counter}.ts`, { statements: [...statements] }, { overwrite: true });
  const body = file.getFullText();
  p.removeSourceFile(file);
  const parts = [options.header, options.prefix?.trimEnd(), body.trim()].filter((s): s is string => Boolean(s));
  return `${parts.join('\n\n')}\n`;
}
