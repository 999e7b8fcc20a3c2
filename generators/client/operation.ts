/** One operation → its descriptor entry and its client method (a ts-morph MethodDeclarationStructure). */
import type { MethodDeclarationStructure, OptionalKind, ParameterDeclarationStructure } from 'ts-morph';
import { StructureKind } from '../core/ts-morph.js';
import type { OperationModel, TypeRef } from '../model/index.js';
import { queryTypeName } from '../model/names.js';
import { docText, identifier, propertyKey, stringLiteral } from '../core/escape.js';

function typeName(ref: TypeRef | null, fallback: string): string {
  if (!ref) return fallback;
  const name = identifier(ref.schema, 'type');
  return ref.array ? `${name}[]` : name;
}

/** `operations['listCards']`: the openapi-typescript type of an operation. */
function operationType(op: OperationModel): string {
  return `operations[${stringLiteral(op.operationId)}]`;
}

/** `GET /cards/{uuid}` followed by the abilities it needs, as the docs of a method say it. */
function routeDoc(op: OperationModel): string {
  return `\`${op.method.toUpperCase()} ${op.path}\` (${op.abilities.map((a) => (a.length ? a.join(' + ') : 'any valid token')).join(' or ')}).`;
}

/** The TypeScript type of the success body's `data` (or of a page item). */
export function resultType(op: OperationModel): string {
  // A page's `data` is an array; the method yields (and is typed by) its items.
  if (op.paginated && op.success.type) return op.success.type.schema;
  // A success without a JSON body (204, or 201 without content) resolves with `lastResponse` only.
  if (op.success.kind === 'none') return 'NoContent';
  return typeName(op.success.type, `${operationType(op)}['responses'][${op.success.status}]['content']['application/json']`);
}

/** Runtime types an operation's method refers to beyond the fixed set (imported only when used). */
export function referencedRuntimeTypes(op: OperationModel): string[] {
  return op.success.kind === 'none' ? ['NoContent'] : [];
}

/** The named types (from the types module) an operation's method refers to, for the import list. */
export function referencedTypes(op: OperationModel): string[] {
  const names = new Set<string>();
  if (op.success.type) names.add(op.success.type.schema);
  else if (op.success.kind !== 'none') names.add('operations');
  if (op.requestBody) {
    if (op.requestBody.type) names.add(op.requestBody.type.schema);
    else names.add('operations');
  }
  if (op.queryParams.length > 0) names.add(queryTypeName(op.operationId));
  return [...names];
}

/** `{ method: 'get', path: '/cards', write: false, query: { status: { style: 'form', explode: false } } }` */
export function transformDescriptor(op: OperationModel): string {
  const styles = op.queryParams
    .filter((p) => p.schema.type === 'array' && !(p.style === 'form' && p.explode))
    .map((p) => `${propertyKey(p.name, { quoted: true })}: { style: 'form', explode: ${p.explode} }`);
  const query = styles.length > 0 ? `, query: { ${styles.join(', ')} }` : '';
  return `{ method: ${stringLiteral(op.method)}, path: ${stringLiteral(op.path)}, write: ${op.idempotent}${query} }`;
}

/** The resource method that calls the runtime for this operation. */
export function transformOperationMethod(op: OperationModel): OptionalKind<MethodDeclarationStructure> {
  const parameters: Array<OptionalKind<ParameterDeclarationStructure>> = [];
  const docs: string[] = [];
  const paramDocs: string[] = [];
  const names = new Set<string>();
  const pathOrder = [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const pathEntries: string[] = [];
  for (const name of pathOrder) {
    const param = op.pathParams.find((p) => p.name === name)!;
    parameters.push({ name: identifier(name, 'binding'), type: 'string' });
    names.add(name);
    pathEntries.push(name);
    paramDocs.push(`@param ${name} ${docText(param.description) || name}`);
  }
  const callParts: string[] = [];
  if (pathEntries.length > 0) callParts.push(`path: { ${pathEntries.join(', ')} }`);
  if (op.queryParams.length > 0) {
    const required = op.queryParams.some((p) => p.required);
    parameters.push({ name: 'query', type: identifier(queryTypeName(op.operationId), 'type'), hasQuestionToken: !required });
    callParts.push('query');
    paramDocs.push('@param query Query parameters.');
  }
  if (op.requestBody) {
    const type = typeName(op.requestBody.type, `NonNullable<${operationType(op)}['requestBody']>['content']['application/json']`);
    parameters.push({ name: 'body', type, hasQuestionToken: !op.requestBody.required });
    callParts.push('body');
    paramDocs.push(`@param body The request body${op.requestBody.required ? '' : ' (optional)'}.`);
  }
  const optionsType = op.idempotent ? 'WriteOptions' : op.paginated ? 'ListOptions' : 'RequestOptions';
  parameters.push({ name: 'options', type: optionsType, hasQuestionToken: true });
  paramDocs.push(
    op.idempotent
      ? '@param options `idempotencyKey` (default: a fresh UUID v4, reused on every retry), `signal`, `timeoutMs`, `maxRetries`.'
      : op.paginated
        ? '@param options `maxItems` bounds iteration; `signal`, `timeoutMs`, `maxRetries`.'
        : '@param options `signal`, `timeoutMs`, `maxRetries`.',
  );
  const result = resultType(op);
  const returnType = op.paginated ? `PagePromise<${result}>` : `Promise<WithResponse<${result}>>`;
  const call = op.paginated ? 'list' : 'request';
  const args = callParts.length > 0 ? `{ ${callParts.join(', ')} }` : '{}';
  docs.push(
    docText([
      docText(op.summary),
      '',
      docText(op.description),
      '',
      routeDoc(op),
      '',
      ...paramDocs,
      op.paginated
        ? '@returns Awaitable as one page (`data`, `meta`, `links`); async-iterable over every item of every page.'
        : op.async
          ? '@returns The accepted Order; its `lastResponse.idempotencyKey` is the key that was sent.'
          : '@returns The response `data`, with `lastResponse` (status, headers, request id) attached.',
    ].join('\n')),
  );
  return {
    kind: StructureKind.Method,
    name: identifier(op.methodName),
    parameters,
    returnType,
    docs,
    statements: [`return this.#core.${call}<${result}>(OPERATIONS.${identifier(op.operationId, 'binding')}, ${args}, options);`],
  };
}

/** The order-waiting helper that sits beside a read (`x-client.waiter`). */
export function transformWaiter(op: OperationModel): OptionalKind<MethodDeclarationStructure> | null {
  if (!op.waiter) return null;
  const id = identifier(op.pathParams[0]?.name ?? 'uuid', 'binding');
  const result = resultType(op);
  return {
    kind: StructureKind.Method,
    name: identifier(op.waiter),
    parameters: [
      { name: id, type: 'string' },
      { name: 'options', type: 'WaitOptions', hasQuestionToken: true },
    ],
    returnType: `Promise<WithResponse<${result}>>`,
    docs: [
      docText([
        `Waits until the order reaches \`completed\` (resolves) or \`failed\` (rejects with \`OrderFailedError\` carrying \`failure_reason\`),`,
        `polling \`${op.method.toUpperCase()} ${op.path}\` every \`intervalMs\` (default 3 s, inside the contract's 2 to 5 s).`,
        'Pass `events` (a webhook receiver) to be woken at once by `order.completed` / `order.failed`.',
        '',
        `@param ${id} The order uuid, from the 202 body of a write.`,
        '@param options `intervalMs`, `timeoutMs` (default 120 s, then `TimeoutError`), `signal`, `events`.',
      ].join('\n')),
    ],
    statements: [`return waitForOrder((u, o) => this.${identifier(op.methodName)}(u, o), ${id}, options);`],
  };
}
