// Copied by gen-card-api from templates/server/docs.ts. Do not edit: change the template and run the generator.
/**
 * The spec at `<prefix>/openapi.yaml` and a Swagger UI reference page at `<prefix>/docs` (contract sections 1
 * and 9), with the UI's assets read from the installed swagger-ui-dist package: no CDN, so the page works
 * offline and under a strict Content-Security-Policy (no inline script either). The page carries a static
 * rendering of the reference, so it has its content before (and without) its script.
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

/**
 * The document's outline, as the generator extracts it (`docsOutline` of `spec.gen.ts`): what the page shows
 * before its script runs. Only tags that have operations are listed; webhooks are a section of their own.
 */
export interface DocsOutline {
  readonly title: string;
  readonly version: string;
  readonly summary: string;
  readonly tags: ReadonlyArray<{
    readonly name: string;
    readonly description: string;
    readonly operations: ReadonlyArray<{ readonly method: string; readonly path: string; readonly summary: string; readonly deprecated: boolean }>;
  }>;
  readonly webhooks: ReadonlyArray<{ readonly name: string; readonly summary: string; readonly deprecated: boolean }>;
}

/** One collapsed operation, in Swagger UI's own markup and classes, so that the page looks the same once it takes over. */
function operationHtml(method: string, path: string, summary: string, deprecated: boolean): string {
  const m = escapeHtml(method.toLowerCase());
  return [
    `<div class="opblock opblock-${m}${deprecated ? ' opblock-deprecated' : ''} is-static">`,
    `<div class="opblock-summary opblock-summary-${m}">`,
    `<span class="opblock-summary-method">${escapeHtml(method.toUpperCase())}</span>`,
    `<div class="opblock-summary-path-description-wrapper"><span class="opblock-summary-path${deprecated ? '__deprecated' : ''}"><span>${escapeHtml(path)}</span></span>`,
    `<div class="opblock-summary-description">${escapeHtml(summary)}</div></div>`,
    '</div></div>',
  ].join('');
}

/**
 * The static rendering: title, tag groups and webhooks as Swagger UI draws them collapsed. It is the page's content
 * from the first byte (no spinner, and something to read without JavaScript); Swagger UI replaces it when it mounts.
 */
export function staticReference(outline: DocsOutline): string {
  const parts = [
    '<div class="swagger-ui card-api-static">',
    '<div class="information-container wrapper"><section class="block col-12"><div class="info"><hgroup class="main">',
    `<h2 class="title">${escapeHtml(outline.title)} <span><small><pre class="version">${escapeHtml(outline.version)}</pre></small></span></h2>`,
    '</hgroup>',
    outline.summary === '' ? '' : `<div class="description"><div class="renderedMarkdown"><p>${escapeHtml(outline.summary)}</p></div></div>`,
    '</div></section></div>',
    '<div class="wrapper"><section class="block col-12">',
  ];
  for (const tag of outline.tags) {
    parts.push(
      '<div class="opblock-tag-section is-open">',
      `<h3 class="opblock-tag"><span>${escapeHtml(tag.name)}</span>${tag.description === '' ? '' : `<small><div class="renderedMarkdown"><p>${escapeHtml(tag.description)}</p></div></small>`}</h3>`,
      '<div class="no-margin"><div class="operation-tag-content">',
      ...tag.operations.map((op) => operationHtml(op.method, op.path, op.summary, op.deprecated)),
      '</div></div></div>',
    );
  }
  if (outline.webhooks.length > 0) {
    parts.push('<div class="webhooks"><h2>Webhooks</h2>', ...outline.webhooks.map((hook) => operationHtml('POST', hook.name, hook.summary, hook.deprecated)), '</div>');
  }
  parts.push('</section></div>', '</div>');
  return parts.join('\n');
}

/** The HTML of the reference page; every URL is absolute under the plugin's prefix. */
export function docsPage(title: string, prefix: string, outline?: DocsOutline): string {
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
    `<div id="swagger-ui">${outline === undefined ? '' : staticReference(outline)}</div>`,
    `<script src="${base}/swagger-ui-bundle.js"></script>`,
    `<script src="${base}/init.js"></script>`,
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

/**
 * The page's script. The document is in it, not fetched: Swagger UI shows a "Loading" spinner while it
 * downloads a `url`, and with the document at hand its first render is already the whole reference, which
 * replaces the static rendering. A plugin drops tag groups without operations (a tag used by webhooks only),
 * which Swagger UI would otherwise draw empty.
 */
export function docsInitScript(openapiYaml: string): string {
  return [
    '(function () {',
    '  var hideEmptyTags = function () {',
    '    return { statePlugins: { spec: { wrapSelectors: { taggedOperations: function (original) {',
    '      return function () { return original.apply(null, arguments).filter(function (tag) { return tag.get("operations").size > 0; }); };',
    '    } } } } };',
    '  };',
    "  var ui = SwaggerUIBundle({ dom_id: '#swagger-ui', deepLinking: true, plugins: [hideEmptyTags] });",
    "  ui.specActions.updateLoadingStatus('success');",
    `  ui.specActions.updateSpec(${JSON.stringify(openapiYaml)});`,
    '  window.ui = ui;',
    '})();',
    '',
  ].join('\n');
}

/** Registers the spec and docs routes on an (already prefixed) instance. They need no token. */
export function registerDocs(instance: FastifyInstance, options: { title: string; openapiYaml: string; outline?: DocsOutline | undefined } & DocsOptions): void {
  const prefix = instance.prefix;
  const cache = new Map<string, Buffer>();
  // One rewritten document, and one page script carrying it, per server URL seen (a handful: the names the
  // server is reached by).
  const documents = new Map<string, string>();
  const scripts = new Map<string, string>();
  const serverUrl = options.serverUrl;
  const page = docsPage(options.title, prefix, options.outline);

  const documentFor = (request: FastifyRequest): { key: string; text: string } => {
    if (!serverUrl) return { key: '', text: options.openapiYaml };
    const url = serverUrl(request);
    const text = documents.get(url) ?? withServerUrl(options.openapiYaml, url);
    if (documents.size < 64) documents.set(url, text);
    return { key: url, text };
  };

  instance.get('/openapi.yaml', async (request, reply) => {
    return reply.type('application/yaml; charset=utf-8').send(documentFor(request).text);
  });
  instance.get('/docs', async (_request, reply) => {
    return reply.type('text/html; charset=utf-8').send(page);
  });
  instance.get('/docs/init.js', async (request, reply) => {
    const { key, text } = documentFor(request);
    const script = scripts.get(key) ?? docsInitScript(text);
    if (scripts.size < 64) scripts.set(key, script);
    return reply.type('text/javascript; charset=utf-8').send(script);
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
