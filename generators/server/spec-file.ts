/**
 * `spec.gen.ts`: the bundled spec as YAML text, served by the plugin at `<prefix>/openapi.yaml`, and its outline,
 * the static rendering of `<prefix>/docs`.
 */
import { createRequire } from 'node:module';
import type * as Yaml from 'yaml';
import { stringLiteral } from '../core/escape.js';
import { printFile } from '../core/print.js';
import type { ServerContext } from './context.js';
import { docsOutline } from './docs-outline.js';
import { exportedConst, toLiteral } from './literal.js';

/** The bundled document as YAML; no line folding, so the text only depends on the document. */
export function bundledYaml(ctx: ServerContext): string {
  // Required here, not imported up front: generators/index.ts loads this module for `client --out` too, which never
  // renders the server (yaml is about 40 ms of CPU to load).
  const YAML = createRequire(import.meta.url)('yaml') as typeof Yaml;
  return YAML.stringify(ctx.model.document, { lineWidth: 0 });
}

/** Renders `spec.gen.ts`, one array element per YAML line so that a spec change is a readable diff. */
export function renderSpecFile(ctx: ServerContext): string {
  const lines = bundledYaml(ctx).replace(/\r\n/g, '\n').split('\n');
  const initializer = `[\n${lines.map((line) => `  ${stringLiteral(line)},`).join('\n')}\n].join('\\n')`;
  return printFile(
    [
      `import type { DocsOutline } from '${ctx.runtimeModule}';`,
      exportedConst('The bundled OpenAPI 3.1 document, served at `<prefix>/openapi.yaml`.', 'openapiYaml', 'string', initializer),
      exportedConst('What `<prefix>/docs` shows before its script runs: the tag groups with their operations, and the webhooks.', 'docsOutline', 'DocsOutline', toLiteral(docsOutline(ctx.model.document))),
    ],
    { header: ctx.header },
  );
}
