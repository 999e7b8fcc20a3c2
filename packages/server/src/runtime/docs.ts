// Copied by gen-card-api from templates/server/docs.ts. Do not edit: change the template and run the generator.
/**
 * The spec at `<prefix>/openapi.yaml` and a Swagger UI reference page at `<prefix>/docs` (contract sections 1
 * and 9), with the UI's assets read from the installed swagger-ui-dist package: no CDN, so the page works
 * offline and under a strict Content-Security-Policy (no inline script either).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Options of the served document. */
export interface DocsOptions {
  /**
   * The URL to put in the served document's `servers` (so that "Try it out" on the page calls this server),
   * from the request that fetched it; for example `(request) => `${requestOrigin(request)}/api/v1``. Absent:
   * the document is served as written.
   */
  serverUrl?: (request: FastifyRequest) => string;
}

/** `http://host:port` as the caller reached this server (the Host header; the protocol Fastify sees). */
export function requestOrigin(request: FastifyRequest): string {
  return `${request.protocol}://${request.host}`;
}

/**
 * The document with its top-level `servers` replaced by one entry for `url`. Works on the YAML text (the
 * block from `servers:` to the next top-level key), so that the rest of the document is served byte for byte.
 */
export function withServerUrl(openapiYaml: string, url: string): string {
  const lines = openapiYaml.split('\n');
  const start = lines.indexOf('servers:');
  const entry = ['servers:', `  - url: ${JSON.stringify(url)}`, '    description: This server, as the request for this document reached it.'];
  if (start === -1) {
    const at = lines.findIndex((line) => /^(security|tags|paths):/.test(line));
    lines.splice(at === -1 ? lines.length : at, 0, ...entry);
    return lines.join('\n');
  }
  let end = start + 1;
  while (end < lines.length && (lines[end] === '' || /^[\s-]/.test(lines[end] ?? ''))) end += 1;
  lines.splice(start, end - start, ...entry);
  return lines.join('\n');
}

/** The assets the page needs, with their content types. Nothing else in the package is served. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
};

let assetDir: string | undefined;

/** Where swagger-ui-dist is installed, found without executing its (browser-only) bundle. */
function swaggerUiDir(): string {
  assetDir ??= path.dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'));
  return assetDir;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The HTML of the reference page; every URL is absolute under the plugin's prefix. */
export function docsPage(title: string, prefix: string): string {
  const base = `${prefix}/docs`;
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(title)}</title>`,
    `<link rel="stylesheet" href="${base}/swagger-ui.css">`,
    `<link rel="icon" type="image/png" href="${base}/favicon-32x32.png">`,
    '</head>',
    '<body>',
    '<div id="swagger-ui"></div>',
    `<script src="${base}/swagger-ui-bundle.js"></script>`,
    `<script src="${base}/init.js"></script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

function initScript(specUrl: string): string {
  return `window.ui = SwaggerUIBundle({ url: ${JSON.stringify(specUrl)}, dom_id: '#swagger-ui', deepLinking: true });\n`;
}

/** Registers the spec and docs routes on an (already prefixed) instance. They need no token. */
export function registerDocs(instance: FastifyInstance, options: { title: string; openapiYaml: string } & DocsOptions): void {
  const prefix = instance.prefix;
  const cache = new Map<string, Buffer>();
  // One rewritten document per server URL seen (a handful: the names the server is reached by).
  const documents = new Map<string, string>();
  const serverUrl = options.serverUrl;

  instance.get('/openapi.yaml', async (request, reply) => {
    let text = options.openapiYaml;
    if (serverUrl) {
      const url = serverUrl(request);
      text = documents.get(url) ?? withServerUrl(options.openapiYaml, url);
      if (documents.size < 64) documents.set(url, text);
    }
    return reply.type('application/yaml; charset=utf-8').send(text);
  });
  instance.get('/docs', async (_request, reply) => {
    return reply.type('text/html; charset=utf-8').send(docsPage(options.title, prefix));
  });
  instance.get('/docs/init.js', async (_request, reply) => {
    return reply.type('text/javascript; charset=utf-8').send(initScript(`${prefix}/openapi.yaml`));
  });
  instance.get<{ Params: { asset: string } }>('/docs/:asset', async (request, reply) => {
    const { asset } = request.params;
    const type = Object.hasOwn(ASSETS, asset) ? ASSETS[asset] : undefined;
    // Unknown names fall through to the plugin's not-found answer; the whitelist also rules out traversal.
    if (type === undefined) return reply.callNotFound();
    let bytes = cache.get(asset);
    if (!bytes) {
      bytes = await readFile(path.join(swaggerUiDir(), asset));
      cache.set(asset, bytes);
    }
    return reply.type(type).header('cache-control', 'public, max-age=86400').send(bytes);
  });
}
