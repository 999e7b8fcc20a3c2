/**
 * ts-morph as a printer: targets build plain Structures and print each file once, with ts-morph's structure
 * printer alone (`printStructure`): no project, no source file, so the printed text is never parsed back into a
 * syntax tree (which `Project.createSourceFile` does, and which took a third of a large client's print time).
 * Nothing is type-checked or emitted during generation.
 */
import type { StatementStructures } from 'ts-morph';
import { printStructure, StructureKind } from './ts-morph.js';

/** The output's layout: two spaces, LF, single quotes, `{ a }` (ts-morph's defaults for the rest). */
const LAYOUT = { indentNumberOfSpaces: 2, newLine: '\n', useSingleQuote: true, insertSpaceAfterOpeningAndBeforeClosingNonemptyBraces: true } as const;

/**
 * Prints statements as one file, with `header` on line 1 (`generatedHeader(model.specName)` for generated
 * files) and an optional raw prefix after it.
 */
export function printFile(statements: ReadonlyArray<string | StatementStructures>, options: { header: string; prefix?: string }): string {
  const body = printStructure({ kind: StructureKind.SourceFile, statements: [...statements] }, LAYOUT);
  const parts = [options.header, options.prefix?.trimEnd(), body.trim()].filter((s): s is string => Boolean(s));
  return `${parts.join('\n\n')}\n`;
}
