/** Shared by the diff tests: the real spec loaded once, and head/base variants of it built in memory. */
import path from 'node:path';
import { buildModel, loadSpec, type ApiModel, type JsonObject, type LoadedSpec } from '../../generators/model/index.js';

export const ROOT = path.resolve(import.meta.dirname, '../..');
export const SPEC = path.join(ROOT, 'spec/openapi.yaml');

let loaded: LoadedSpec | undefined;
export async function realSpec(): Promise<LoadedSpec> {
  loaded ??= await loadSpec(SPEC);
  return loaded;
}

/** A model of a mutated copy of the real spec (the loaded document, cloned; the original is never touched). */
export function variant(spec: LoadedSpec, mutate: (doc: any) => void = () => {}): ApiModel {
  const document = structuredClone(spec.document) as JsonObject;
  mutate(document);
  return buildModel({ file: spec.file, hash: 'variant', document });
}

/** Shorthands over a bundled document. */
export const schemas = (doc: any): any => doc.components.schemas;
export const op = (doc: any, route: string, method = 'get'): any => doc.paths[route][method];
export const param = (doc: any, route: string, method: string, name: string): any => op(doc, route, method).parameters.find((p: any) => p.name === name);
