/**
 * Names, in this toolkit's generated code, of what a change touches. Only a document that follows the toolkit's
 * conventions (`x-client` on its operations) has them; any other document's changes touch nothing by name.
 */
import type { DiffDoc, Event, Op } from './document.js';

/** `client.cards.create()` or `client.ping()`, from the operation's `x-client`. */
export function clientMethod(op: Op): string | null {
  return op.client ? `client.${op.client.resource ? `${op.client.resource}.` : ''}${op.client.method}()` : null;
}

/** Generated code an operation's changes touch: its client method (and waiter). */
export function operationTouches(op: Op): string[] {
  const method = clientMethod(op);
  if (!method || !op.client) return [];
  const out = [method];
  if (op.client.waiter) out.push(`client.${op.client.resource ? `${op.client.resource}.` : ''}${op.client.waiter}()`);
  return out;
}

/**
 * The exported query type of an operation (`ListCardsQuery`), named as the types target names it
 * (`transformOperationQuery` in generators/types/aliases.ts, whose module loads ts-morph, which diff must not pay
 * for; test/diff/touches.test.ts keeps the two equal).
 */
export function queryTypeName(doc: DiffDoc, op: Op): string | null {
  if (!doc.toolkit || !op.operationId || ![...op.params.values()].some((p) => p.in === 'query')) return null;
  const pascal = op.operationId.split(/[^A-Za-z0-9]+/).filter(Boolean).map((part) => part[0]!.toUpperCase() + part.slice(1)).join('');
  return `${pascal}Query`;
}

export function eventTouches(doc: DiffDoc, event: Event, payloadType: string | undefined): string[] {
  if (!doc.toolkit) return [];
  return [`event '${event.name}'`, `EventMap['${event.name}']`, ...(payloadType ? [`type ${payloadType}`] : [])];
}
