/** Groups operations into resource classes and the `CardApiClient` facade. */
import type { ClassDeclarationStructure, StatementStructures } from 'ts-morph';
import { Scope, StructureKind, VariableDeclarationKind } from '../core/ts-morph.js';
import type { ApiModel, OperationModel } from '../model/index.js';
import { compareStrings, sortBy } from '../model/index.js';
import { resourceClassName as className } from '../model/names.js';
import { docText, identifier } from '../core/escape.js';
import { transformDescriptor, transformOperationMethod, transformWaiter } from './operation.js';

function methodsOf(ops: OperationModel[]) {
  return sortBy(ops, (op) => op.methodName).flatMap((op) => {
    const waiter = transformWaiter(op);
    return waiter ? [transformOperationMethod(op), waiter] : [transformOperationMethod(op)];
  });
}

export function resourceClassName(resource: string): string {
  return identifier(className(resource), 'type');
}

/** `const OPERATIONS = { ... } as const satisfies Record<string, OperationDescriptor>;` */
export function transformDescriptors(model: ApiModel): StatementStructures {
  const entries = model.operations.map((op) => `${identifier(op.operationId, 'binding')}: ${transformDescriptor(op)},`);
  return {
    kind: StructureKind.VariableStatement,
    declarationKind: VariableDeclarationKind.Const,
    docs: ['How each operation is called: method, path template, whether it is an idempotent write, query styles.'],
    declarations: [{ name: 'OPERATIONS', initializer: `{\n${entries.join('\n')}\n} as const satisfies Record<string, OperationDescriptor>` }],
  };
}

export function transformResourceClass(resource: string, ops: OperationModel[]): ClassDeclarationStructure {
  const tags = [...new Set(ops.flatMap((op) => op.tags))].sort(compareStrings);
  return {
    kind: StructureKind.Class,
    isExported: true,
    name: resourceClassName(resource),
    docs: [docText(`\`${resource}\`: ${tags.join(', ')} operations. Reach it as \`client.${resource}\`.`)],
    properties: [{ name: '#core', type: 'ClientCore', isReadonly: true }],
    ctors: [{ parameters: [{ name: 'core', type: 'ClientCore' }], statements: ['this.#core = core;'], docs: ['@internal Created by {@link CardApiClient}.'] }],
    methods: methodsOf(ops),
  };
}

export function transformClientClass(model: ApiModel): ClassDeclarationStructure {
  const resources = [...new Set(model.operations.map((op) => op.resource).filter((r): r is string => r !== null))].sort(compareStrings);
  const rootOps = model.operations.filter((op) => op.resource === null);
  return {
    kind: StructureKind.Class,
    isExported: true,
    name: 'CardApiClient',
    docs: [
      docText([
        `Typed client of the ${model.title} (spec version ${model.version}).`,
        '',
        'Every write sends `X-Idempotency-Key` (yours or a fresh UUID v4, the same on every retry); network errors,',
        '408, 429 and 5xx are retried with exponential back-off and full jitter, honouring `Retry-After`; errors are',
        'typed `CardApiError` subclasses; lists are awaitable pages and async iterables over every item.',
        '',
        '@example',
        '```ts',
        "const api = new CardApiClient({ token: process.env.CARD_API_TOKEN!, baseUrl: 'http://localhost:4010/api/v1' });",
        "const order = await api.cards.create({ card_product_id: 1, initial_topup_amount: '100.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' });",
        'const done = await api.orders.wait(order.uuid);',
        '```',
      ].join('\n')),
    ],
    properties: [
      ...resources.map((r) => ({ name: identifier(r), type: resourceClassName(r), isReadonly: true, scope: Scope.Public })),
      { name: '#core', type: 'ClientCore', isReadonly: true },
    ],
    ctors: [
      {
        parameters: [{ name: 'options', type: 'ClientOptions' }],
        docs: ['@param options `token` and `baseUrl` (required), `maxRetries` (default 2), `timeoutMs` per attempt, `fetch`, `userAgent`.'],
        statements: ['this.#core = new ClientCore(options);', ...resources.map((r) => `this.${identifier(r)} = new ${resourceClassName(r)}(this.#core);`)],
      },
    ],
    methods: methodsOf(rootOps),
  };
}

export function transformResources(model: ApiModel): ClassDeclarationStructure[] {
  const byResource = new Map<string, OperationModel[]>();
  for (const op of model.operations) {
    if (op.resource === null) continue;
    byResource.set(op.resource, [...(byResource.get(op.resource) ?? []), op]);
  }
  return [...byResource.keys()].sort(compareStrings).map((r) => transformResourceClass(r, byResource.get(r)!));
}
