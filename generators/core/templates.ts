/**
 * Copies hand-written runtime from templates/<name>/ into a target's output: every .ts file except tests,
 * with the template header, imports untouched (templates only import each other relatively).
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { REPO_ROOT } from './assets.js';
import { compareStrings } from '../model/index.js';
import { templateHeader, type GeneratedFile } from './target.js';

const cache = new Map<string, Array<{ rel: string; text: string }>>();

async function listTemplates(dir: string, base = dir): Promise<Array<{ rel: string; text: string }>> {
  const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) => compareStrings(a.name, b.name));
  const files: Array<{ rel: string; text: string }> = [];
  for (const entry of entries) {
    const full = path.join(dir, entry.name);
    // Folders such as __fixtures__ hold test-only code and never ship.
    if (entry.isDirectory()) {
      if (!entry.name.startsWith('__')) files.push(...(await listTemplates(full, base)));
    }
    else if (entry.name.endsWith('.ts') && !/\.test(-d)?\.ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      files.push({ rel: path.relative(base, full).split(path.sep).join('/'), text: await readFile(full, 'utf8') });
    }
  }
  return files;
}

/** The runtime files of `templates/<name>`, rendered under `<outDir>/runtime/`. */
export async function copyTemplates(name: string, outDir: string): Promise<GeneratedFile[]> {
  let files = cache.get(name);
  if (!files) {
    files = await listTemplates(path.join(REPO_ROOT, 'templates', name));
    cache.set(name, files);
  }
  return files.map(({ rel, text }) => ({
    path: `${outDir}/runtime/${rel}`,
    contents: `${templateHeader(`templates/${name}/${rel}`)}\n${text.replace(/\r\n/g, '\n')}`,
  }));
}
