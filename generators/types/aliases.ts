/**
 * Flat named exports over openapi-typescript's `components` and `operations`: one alias per schema, a
 * union plus an `as const` array per enum, one query type per operation with query parameters.
 */
import type { StatementStructures } from 'ts-morph';
import { StructureKind, VariableDeclarationKind } from '../core/ts-morph.js';
import type { ApiModel, EnumModel, OperationModel, SchemaModel } from '../model/index.js';
import { enumValuesName, queryTypeName } from '../model/names.js';
import { docText, identifier, stringLiteral } from '../core/escape.js';

/** `export type Card = components['schemas']['Card'];` */
export function transformSchemaAlias(schema: SchemaModel): StatementStructures {
  return {
    kind: StructureKind.TypeAlias,
    isExported: true,
    name: identifier(schema.name, 'type'),
    type: `components['schemas'][${stringLiteral(schema.name)}]`,
    docs: schema.description ? [docText(schema.description)] : [],
  };
}

/** `export const CardStatusValues = [...] as const satisfies readonly CardStatus[];` with one line per value. */
export function transformEnumValues(enumModel: EnumModel): StatementStructures {
  // A blank description falls back to the value itself, which is spec text too.
  const lines = enumModel.values.map((v) => `/** ${docText(enumModel.descriptions[v]) || docText(v)} */\n${stringLiteral(v)},`);
  return {
    kind: StructureKind.VariableStatement,
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [`Every value of {@link ${identifier(enumModel.name, 'type')}}, in spec order.`],
    declarations: [
      {
        name: identifier(enumValuesName(enumModel.name), 'type'),
        initializer: `[\n${lines.join('\n')}\n] as const satisfies readonly ${identifier(enumModel.name, 'type')}[]`,
      },
    ],
  };
}

/** `export type ListCardsQuery = NonNullable<operations['listCards']['parameters']['query']>;` */
export function transformOperationQuery(op: OperationModel): StatementStructures | null {
  if (op.queryParams.length === 0) return null;
  return {
    kind: StructureKind.TypeAlias,
    isExported: true,
    name: identifier(queryTypeName(op.operationId), 'type'),
    type: `NonNullable<operations[${stringLiteral(op.operationId)}]['parameters']['query']>`,
    docs: [docText(`Query parameters of \`${op.method.toUpperCase()} ${op.path}\`.`)],
  };
}

export function transformAliases(model: ApiModel): StatementStructures[] {
  return [
    ...model.schemas.map(transformSchemaAlias),
    ...model.enums.map(transformEnumValues),
    ...model.operations.map(transformOperationQuery).filter((s): s is StatementStructures => s !== null),
  ];
}
