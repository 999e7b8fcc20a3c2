/** `routes.gen.ts`: the shared component schemas and the route table, both plain data from the spec. */
import type { StatementStructures } from 'ts-morph';
import { StructureKind } from '../core/ts-morph.js';
import { printFile } from '../core/print.js';
import { transformComponentsObject } from './components-object.js';
import type { ServerContext } from './context.js';
import { exportedConst, toLiteral } from './literal.js';
import { transformOperationObject } from './operation-object.js';

/** Renders `routes.gen.ts`. Operations come sorted by operationId from the model. */
export function renderRoutesFile(ctx: ServerContext): string {
  const routes = ctx.model.operations.map((op) => transformOperationObject(op, ctx));
  const statements: Array<string | StatementStructures> = [
    {
      kind: StructureKind.ImportDeclaration,
      moduleSpecifier: ctx.runtimeModule,
      isTypeOnly: true,
      namedImports: [{ name: 'JsonSchema' }, { name: 'RouteDefinition' }],
    },
    exportedConst(
      `The spec's component schemas as one shared schema set; route schemas refer to \`${ctx.schemaId}#/$defs/<Name>\`.`,
      'componentSchemas',
      'JsonSchema',
      toLiteral(transformComponentsObject(ctx)),
    ),
    exportedConst('Every operation of the spec, sorted by operationId: method, URL, abilities and JSON Schemas.', 'routes', 'readonly RouteDefinition[]', toLiteral(routes)),
  ];
  return printFile(statements, { header: ctx.header });
}
