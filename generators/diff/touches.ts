/** Names, in this toolkit's generated code, of what a change touches: read from the model and the generators. */
import type { EventModel, OperationModel } from '../model/index.js';
import { transformOperationQuery } from '../types/aliases.js';

/** `client.cards.create()` or `client.ping()`, from the operation's `x-client`. */
export function clientMethod(op: OperationModel): string {
  return `client.${op.resource ? `${op.resource}.` : ''}${op.methodName}()`;
}

/** Generated code an operation's changes touch: its client method (and waiter). */
export function operationTouches(op: OperationModel): string[] {
  const out = [clientMethod(op)];
  if (op.waiter) out.push(`client.${op.resource ? `${op.resource}.` : ''}${op.waiter}()`);
  return out;
}

/** The exported query type of an operation (`ListCardsQuery`), if the types target generates one. */
export function queryTypeName(op: OperationModel): string | null {
  const statement = transformOperationQuery(op);
  return statement && 'name' in statement && typeof statement.name === 'string' ? statement.name : null;
}

export function eventTouches(event: EventModel): string[] {
  return [`event '${event.name}'`, `EventMap['${event.name}']`, `type ${event.schemaName}`];
}
