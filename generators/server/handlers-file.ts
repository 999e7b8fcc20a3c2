/**
 * `handlers.gen.ts`: the `CardApiHandlers` interface (one typed handler per operation, keyed by operationId)
 * and the spec's error codes, added to the runtime's `ApiErrorCodes` so that `ApiError` codes are checked.
 */
import type { InterfaceDeclarationStructure, OptionalKind, PropertySignatureStructure, StatementStructures } from 'ts-morph';
import { StructureKind } from '../core/ts-morph.js';
import { docText, identifier, propertyKey, stringLiteral } from '../core/escape.js';
import { printFile } from '../core/print.js';
import type { ServerContext } from './context.js';
import { compareStrings, type JsonObject, type OperationModel } from '../model/index.js';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Follows local `$ref`s in the bundled document. */
function resolve(ctx: ServerContext, node: unknown): JsonObject | null {
  let current = node;
  for (let hops = 0; isObject(current) && typeof current.$ref === 'string' && hops < 32; hops += 1) {
    let target: unknown = ctx.model.document;
    for (const raw of current.$ref.replace(/^#\//, '').split('/')) {
      target = isObject(target) ? target[raw.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
    }
    current = target;
  }
  return isObject(current) ? current : null;
}

/**
 * The codes an error body may carry: the `enum` of `error.code` in the error responses' schema. The model
 * does not expose it, so it is read from the bundled document. Sorted; empty when the spec has no such enum.
 */
export function errorCodes(ctx: ServerContext): string[] {
  const codes = new Set<string>();
  for (const op of ctx.model.operations) {
    for (const response of op.errors) {
      if (response.kind !== 'error') continue;
      const body = resolve(ctx, response.schema);
      const error = resolve(ctx, isObject(body?.properties) ? body.properties.error : undefined);
      const code = resolve(ctx, isObject(error?.properties) ? error.properties.code : undefined);
      for (const value of Array.isArray(code?.enum) ? code.enum : []) if (typeof value === 'string') codes.add(value);
    }
  }
  return [...codes].sort(compareStrings);
}

/** The JSDoc of one handler: route, summary, abilities, statuses. */
function handlerDoc(op: OperationModel): string {
  const abilities = op.abilities.map((all) => (all.length === 0 ? 'any valid token' : all.join(' + '))).join(' or ');
  const errors = op.errors.map((e) => e.status).join(', ');
  const lines = [
    `\`${op.method.toUpperCase()} ${op.path}\`: ${docText(op.summary)}.`,
    '',
    `Ability: ${abilities}. Success: ${op.success.status}${op.async ? ' (an Order; the outcome arrives later)' : ''}. Documented errors: ${errors || 'none'}.`,
  ];
  if (op.idempotencyHeader) lines.push(`Idempotent with \`${op.idempotencyHeader}\` (in \`headers['${op.idempotencyHeader.toLowerCase()}']\`).`);
  return docText(lines.join('\n'));
}

/** The handlers interface (`CardApiHandlers` for the card API). */
export function transformHandlersInterface(ctx: ServerContext): InterfaceDeclarationStructure {
  const properties: Array<OptionalKind<PropertySignatureStructure>> = ctx.model.operations.map((op) => ({
    name: identifier(op.operationId, 'binding'),
    docs: [handlerDoc(op)],
    type: `OperationHandler<operations[${stringLiteral(op.operationId)}], ${op.success.status}, Auth>`,
  }));
  return {
    kind: StructureKind.Interface,
    name: ctx.handlersName,
    isExported: true,
    typeParameters: [{ name: 'Auth', constraint: 'AuthResult', default: 'AuthResult' }],
    docs: [
      [
        'One handler per operation of the spec, keyed by operationId. A handler receives the validated',
        '`{ params, query, headers, body, auth, requestId, request }` and returns the success body (or',
        '`{ status, body }` for another documented response); it throws `ApiError` for a documented error.',
        '`Auth` is what your `authenticate` returns.',
      ].join('\n'),
    ],
    properties,
  };
}

/** Renders `handlers.gen.ts`. */
export function renderHandlersFile(ctx: ServerContext): string {
  const codes = errorCodes(ctx);
  const statements: Array<string | StatementStructures> = [
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: ctx.typesModule, isTypeOnly: true, namedImports: [{ name: 'operations' }] },
    {
      kind: StructureKind.ImportDeclaration,
      moduleSpecifier: ctx.runtimeModule,
      isTypeOnly: true,
      namedImports: [{ name: 'AuthResult' }, { name: 'OperationHandler' }],
    },
    transformHandlersInterface(ctx),
  ];
  // The error-code registry is augmented once, by the package that owns the runtime copy.
  if (codes.length > 0 && ctx.runtimeModule === './runtime/index.js') {
    statements.push({
      kind: StructureKind.Module,
      name: "'./runtime/errors.js'",
      hasDeclareKeyword: true,
      docs: ["The spec's error codes (`ErrorCode`): `new ApiError(status, code, ...)` accepts these (and the scaffold's `api.not_implemented`)."],
      statements: [
        {
          kind: StructureKind.Interface,
          name: 'ApiErrorCodes',
          properties: codes.map((code) => ({ name: propertyKey(code, { quoted: true }), type: 'true' })),
        },
      ],
    });
  }
  return printFile(statements, { header: ctx.header });
}
