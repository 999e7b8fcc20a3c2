/**
 * Flat named exports over openapi-typescript's `components` and `operations`: one alias per schema, a
 * union plus an `as const` array per enum, one query type per operation with query parameters.
 */
import { StructureKind, VariableDeclarationKind, type StatementStructures } from 'ts-morph';
import type { ApiModel, EnumModel, OperationModel, SchemaModel } from '../model/index.js';
import { docText, pascalCase, quote } from '../core/print.js';

/** `export type Card = components['schemas']['Card'];` */
export function transformSchemaAlias(schema: SchemaModel): StatementStructures {
  return {
    kind: StructureKind.TypeAlias,
    isExported: true,
    name: schema.name,
    type: `components['schemas'][${quote(schema.name)}]`,
    docs: schema.description ? [docText(schema.description)] : [],
  };
}

/** `export const CardStatusValues = [...] as const satisfies readonly CardStatus[];` with one line per value. */
export function transformEnumValues(enumModel: EnumModel): StatementStructures {
  const lines = enumModel.values.map((v) => `/** ${docText(enumModel.descriptions[v]) || v} */\n${quote(v)},`);
  return {
    kind: StructureKind.VariableStatement,
    isExported: true,
    declarationKind: VariableDeclarationKind.Const,
    docs: [`Every value of {@link ${enumModel.name}}, in spec order.`],
    declarations: [
      {
        name: `${enumModel.name}Values`,
        initializer: `[\n${lines.join('\n')}\n] as const satisfies readonly ${enumModel.name}[]`,
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
    name: `${pascalCase(op.operationId)}Query`,
    type: `NonNullable<operations[${quote(op.operationId)}]['parameters']['query']>`,
    docs: [`Query parameters of \`${op.method.toUpperCase()} ${op.path}\`.`],
  };
}

export function transformAliases(model: ApiModel): StatementStructures[] {
  return [
    ...model.schemas.map(transformSchemaAlias),
    ...model.enums.map(transformEnumValues),
    ...model.operations.map(transformOperationQuery).filter((s): s is StatementStructures => s !== null),
  ];
}
