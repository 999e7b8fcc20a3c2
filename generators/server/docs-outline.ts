/**
 * The document's outline for the static rendering of `<prefix>/docs`: what Swagger UI shows collapsed (the info
 * title, the tag groups with their operations, the webhooks), in the document's own order, so that the page has
 * its content before any script runs. Tags no operation uses are left out: Swagger UI lists webhooks apart from
 * the tag groups, so a tag used by webhooks only would be an empty group.
 */
import type { JsonObject } from '../model/index.js';

/** Mirrors `DocsOutline` of templates/server/docs.ts (the generated literal is typed by it). */
export interface DocsOutlineData {
  title: string;
  version: string;
  summary: string;
  tags: Array<{ name: string; description: string; operations: Array<{ method: string; path: string; summary: string; deprecated: boolean }> }>;
  webhooks: Array<{ name: string; summary: string; deprecated: boolean }>;
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const text = (value: unknown): string => (typeof value === 'string' ? value.trim() : '');

/** Operations of a path item, in the item's own key order (Swagger UI's order). */
function operationsOf(item: unknown): Array<[string, JsonObject]> {
  if (!isObject(item)) return [];
  return Object.entries(item).filter((entry): entry is [string, JsonObject] => METHODS.includes(entry[0]) && isObject(entry[1]));
}

/** Builds the outline from the bundled document (local `$ref`s of path items are not followed: the spec has none). */
export function docsOutline(document: JsonObject): DocsOutlineData {
  const info = isObject(document.info) ? document.info : {};
  const groups = new Map<string, DocsOutlineData['tags'][number]>();
  for (const tag of Array.isArray(document.tags) ? document.tags : []) {
    if (isObject(tag) && typeof tag.name === 'string' && !groups.has(tag.name)) groups.set(tag.name, { name: tag.name, description: text(tag.description), operations: [] });
  }
  for (const [path, item] of Object.entries(isObject(document.paths) ? document.paths : {})) {
    for (const [method, op] of operationsOf(item)) {
      const tags = Array.isArray(op.tags) && op.tags.length > 0 ? op.tags.filter((t): t is string => typeof t === 'string') : ['default'];
      for (const name of tags) {
        const group = groups.get(name) ?? { name, description: '', operations: [] };
        groups.set(name, group);
        group.operations.push({ method: method.toUpperCase(), path, summary: text(op.summary), deprecated: op.deprecated === true });
      }
    }
  }
  const webhooks: DocsOutlineData['webhooks'] = [];
  for (const [name, item] of Object.entries(isObject(document.webhooks) ? document.webhooks : {})) {
    for (const [, op] of operationsOf(item)) webhooks.push({ name, summary: text(op.summary), deprecated: op.deprecated === true });
  }
  return {
    title: text(info.title),
    version: text(info.version),
    summary: text(info.summary),
    tags: [...groups.values()].filter((group) => group.operations.length > 0),
    webhooks,
  };
}
