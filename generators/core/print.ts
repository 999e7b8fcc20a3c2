/**
 * ts-morph as a printer: targets build plain Structures and print each file once. One in-memory project is
 * shared by the whole run; nothing is type-checked or emitted during generation.
 */
import { IndentationText, NewLineKind, Project, QuoteKind, type StatementStructures } from 'ts-morph';

let project: Project | undefined;
let counter = 0;

function sharedProject(): Project {
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

/** Turns spec prose into a JSDoc-safe text (no comment terminators, trimmed, LF only). */
export function docText(text: string | undefined | null): string {
  return (text ?? '').replace(/\r\n/g, '\n').replace(/\*\//g, '*\\/').trim();
}

/** A JS string literal with single quotes, as the printer would write it. */
export function quote(value: string): string {
  return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}

/** `get-card` / `get_card` / `getCard` → `GetCard`. */
export function pascalCase(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}
