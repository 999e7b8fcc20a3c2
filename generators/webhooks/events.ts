/** The event union, names, lookup type and guards of @card-api/webhooks, from the spec's `webhooks`. */
import type { StatementStructures } from 'ts-morph';
import { StructureKind, VariableDeclarationKind } from '../core/ts-morph.js';
import type { ApiModel, EventModel } from '../model/index.js';
import { docText, identifier, jsonLiteral, propertyKey, stringLiteral } from '../core/escape.js';

function eventDoc(event: EventModel): string {
  return [docText(event.summary), '', docText(event.description)].join('\n').trim();
}

export function transformEvents(model: ApiModel, typesModule: string): StatementStructures[] {
  const events = model.events;
  const types = [...new Set(events.map((e) => identifier(e.schemaName, 'type')))];
  return [
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: typesModule, isTypeOnly: true, namedImports: types.map((name) => ({ name })) },
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: [`The ${events.length} event codes of the spec's \`webhooks\`, sorted.`],
      declarations: [{ name: 'EVENT_NAMES', initializer: `[\n${events.map((e) => `${stringLiteral(e.name)},`).join('\n')}\n] as const` }],
    },
    { kind: StructureKind.TypeAlias, isExported: true, name: 'EventName', type: '(typeof EVENT_NAMES)[number]', docs: ['An event code.'] },
    {
      kind: StructureKind.Interface,
      isExported: true,
      name: 'EventMap',
      docs: ['Each event code to its payload (the whole delivered body).'],
      properties: events.map((e) => ({ name: propertyKey(e.name, { quoted: true }), type: identifier(e.schemaName, 'type'), docs: [eventDoc(e)] })),
    },
    {
      kind: StructureKind.TypeAlias,
      isExported: true,
      name: 'CardApiEvent',
      type: 'EventMap[EventName]',
      docs: ['Every event, discriminated on `event`.'],
    },
    {
      kind: StructureKind.TypeAlias,
      isExported: true,
      name: 'EventOf',
      typeParameters: [{ name: 'N', constraint: 'EventName' }],
      type: 'EventMap[N]',
      docs: ["The payload of one event: `EventOf<'order.completed'>`."],
    },
    {
      kind: StructureKind.Function,
      isExported: true,
      name: 'isEventName',
      parameters: [{ name: 'value', type: 'unknown' }],
      returnType: 'value is EventName',
      docs: ['Whether a string is one of the spec\'s event codes (an unknown code is a newer event, not an error).'],
      statements: ['return typeof value === \'string\' && (EVENT_NAMES as readonly string[]).includes(value);'],
    },
    {
      kind: StructureKind.Function,
      isExported: true,
      name: 'isEvent',
      typeParameters: [{ name: 'N', constraint: 'EventName' }],
      parameters: [
        { name: 'event', type: '{ event: string }' },
        { name: 'name', type: 'N' },
      ],
      returnType: 'event is EventOf<N>',
      docs: ["Narrows a verified event to one code: `if (isEvent(e, 'card.frozen')) e.data.origin`."],
      statements: ['return event.event === name;'],
    },
  ];
}

/** One valid payload per event, from the spec's examples. */
export function transformFixtures(model: ApiModel): StatementStructures[] {
  const entries = model.events.map((e) => `${propertyKey(e.name, { quoted: true })}: ${jsonLiteral(e.example)},`);
  return [
    { kind: StructureKind.ImportDeclaration, moduleSpecifier: './events.gen.js', isTypeOnly: true, namedImports: [{ name: 'EventMap' }] },
    {
      kind: StructureKind.VariableStatement,
      isExported: true,
      declarationKind: VariableDeclarationKind.Const,
      docs: ['A valid payload of every event, taken from the spec\'s examples; sign one with `signPayload` to test a receiver.'],
      declarations: [{ name: 'eventFixtures', initializer: `{\n${entries.join('\n')}\n} satisfies EventMap` }],
    },
  ];
}
