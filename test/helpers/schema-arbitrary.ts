/**
 * fast-check arbitraries from an OpenAPI 3.1 document: the operations with their parameters, and values that satisfy
 * a schema (from verify's generator, packages/cli/src/verify/generate.ts, so that the tests and the shipped tool
 * draw the same values).
 */

type Json = Record<string, any>;

/** One operation of a document, with everything needed to build a request. */
export interface DocOperation {
  operationId: string;
  method: string;
  /** Path template, `/cards/{uuid}`. */
  route: string;
  pattern: RegExp;
  statuses: number[];
  parameters: Array<{ name: string; in: 'path' | 'query' | 'header'; required: boolean; schema: Json }>;
  body: Json | undefined;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'];

function resolve(doc: Json, node: Json): Json {
  let current = node;
  for (let depth = 0; current && typeof current.$ref === 'string' && depth < 20; depth++) {
    current = current.$ref
      .slice(2)
      .split('/')
      .reduce((at: Json, key: string) => at?.[key], doc);
  }
  return current;
}

/** Every operation of `doc`. */
export function operationsOf(doc: Json): DocOperation[] {
  return Object.entries(doc.paths as Json).flatMap(([route, rawItem]) => {
    const item = rawItem as Json;
    return Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, rawOp]) => {
        const op = rawOp as Json;
        const parameters = [...((item.parameters ?? []) as Json[]), ...((op.parameters ?? []) as Json[])].map((p) => {
          const param = resolve(doc, p);
          return { name: param.name as string, in: param.in as 'path' | 'query' | 'header', required: param.required === true, schema: param.schema as Json };
        });
        const body = op.requestBody ? (resolve(doc, op.requestBody).content?.['application/json']?.schema as Json | undefined) : undefined;
        return {
          operationId: op.operationId as string,
          method: method.toUpperCase(),
          route,
          // As Fastify's router matches: a parameter may be empty (`/cards//topup` reaches the route).
          pattern: new RegExp(`^${route.replace(/\{[^}]+\}/g, '[^/]*')}$`),
          statuses: Object.keys(op.responses).map(Number),
          parameters,
          body,
        };
      });
  });
}

/** An arbitrary of values valid against `schema` (resolved in `doc`): the generator `gen-card-api verify` ships. */
export { validValue as valueOf } from '../../packages/cli/src/verify/generate.js';
