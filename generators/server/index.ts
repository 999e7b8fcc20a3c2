/**
 * The server generator: the `server` target and the handler scaffold. One transform per OpenAPI object
 * (schema-object, parameter-object, operation-object, components-object), one renderer per generated file.
 */
export { renderServer, serverTarget } from './target.js';
export { scaffoldHandlers, writeScaffold, SCAFFOLD_HEADER, type ScaffoldResult } from './scaffold.js';
export { transformSchemaObject } from './schema-object.js';
export { transformParameters, commaSeparatedQuery } from './parameter-object.js';
export { transformOperationObject, fastifyUrl, type RouteEntry } from './operation-object.js';
export { transformComponentsObject } from './components-object.js';
export { createContext, SCHEMA_ID, type ServerContext } from './context.js';
