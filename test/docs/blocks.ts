/**
 * The fenced code blocks of the READMEs a user reads (the root README.md and packages/*\/README.md), each with a
 * stable key: `<file> › <heading> › <lang> <n>` (the n-th block of that language under that heading).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export interface Block {
  /** `README.md › A local sandbox › sh 1` */
  key: string;
  file: string;
  heading: string;
  lang: string;
  /** 1-based line of the opening fence. */
  line: number;
  /** The block's text as a reader copies it: the list indentation removed, ending in a newline. */
  text: string;
}

/** The READMEs whose blocks are tested, from the root. */
export function readmeFiles(root: string): string[] {
  const packages = readdirSync(path.join(root, 'packages'), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => `packages/${entry.name}/README.md`)
    .filter((file) => {
      try {
        readFileSync(path.join(root, file));
        return true;
      } catch {
        return false;
      }
    })
    .sort();
  return ['README.md', ...packages];
}

/** Every fenced block of one Markdown file. An unclosed fence is an error: the rest of the file would be code. */
export function blocksOf(file: string, markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  const counts = new Map<string, number>();
  let heading = '(top)';
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const title = /^#{1,6} (.+)$/.exec(line);
    if (title) {
      heading = title[1]!.trim();
      continue;
    }
    const open = /^( *)```(\S*)\s*$/.exec(line);
    if (!open) continue;
    const indent = open[1]!;
    const lang = open[2] || 'text';
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !new RegExp(`^${indent}\`\`\`\\s*$`).test(lines[j]!); j++) body.push(lines[j]!.startsWith(indent) ? lines[j]!.slice(indent.length) : lines[j]!);
    if (j >= lines.length) throw new Error(`${file}:${i + 1}: a \`\`\`${lang} block that never closes`);
    const counter = `${heading}\u0000${lang}`;
    const n = (counts.get(counter) ?? 0) + 1;
    counts.set(counter, n);
    blocks.push({ key: `${file} › ${heading} › ${lang} ${n}`, file, heading, lang, line: i + 1, text: `${body.join('\n')}\n` });
    i = j;
  }
  return blocks;
}

/** Every block of every README. */
export function readmeBlocks(root: string): Block[] {
  return readmeFiles(root).flatMap((file) => blocksOf(file, readFileSync(path.join(root, file), 'utf8')));
}
