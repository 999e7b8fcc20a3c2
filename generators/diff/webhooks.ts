/** Walks the webhooks of both sides. A payload is written by the service and read by the receiver: response polarity. */
import type { ApiModel, EventModel, JsonObject } from '../model/index.js';
import type { Collector, Scope } from './change.js';
import { compareSchemas, normalise, resolveRef } from './schema.js';
import { eventTouches } from './touches.js';

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function rawPost(doc: JsonObject, event: EventModel): JsonObject {
  const item = resolveRef(doc, isObject(doc.webhooks) ? doc.webhooks[event.name] : undefined, '#').node;
  return isObject(item) && isObject(item.post) ? item.post : {};
}

/** The signature header parameter of an event: name, pointer, and its schema flattened to a comparable text. */
function signature(doc: JsonObject, event: EventModel): { name: string; at: string; shape: string } | null {
  const params = rawPost(doc, event).parameters;
  if (!Array.isArray(params)) return null;
  for (let i = 0; i < params.length; i += 1) {
    const r = resolveRef(doc, params[i], `${event.pointer}/parameters/${i}`);
    if (isObject(r.node) && r.node.in === 'header' && r.node.required === true && typeof r.node.name === 'string') {
      const n = normalise(doc, [{ node: r.node.schema, at: `${r.at}/schema` }]);
      const shape = JSON.stringify([n.types ? [...n.types].sort() : null, n.format ?? null, n.pattern ?? null, n.bounds]);
      return { name: r.node.name, at: r.at, shape };
    }
  }
  return null;
}

function payloadAt(doc: JsonObject, event: EventModel): { node: unknown; at: string } {
  const body = resolveRef(doc, rawPost(doc, event).requestBody, `${event.pointer}/requestBody`);
  const content = isObject(body.node) && isObject(body.node.content) ? body.node.content : {};
  const json = isObject(content['application/json']) ? content['application/json'] : {};
  return { node: json.schema, at: `${body.at}/content/application~1json/schema` };
}

export function compareWebhooks(base: ApiModel, head: ApiModel, collector: Collector): void {
  const heads = new Map(head.events.map((e) => [e.name, e]));
  for (const b of base.events) {
    const h = heads.get(b.name);
    const scope: Scope = { event: b.name, touches: eventTouches(b) };
    if (!h) {
      collector.add('webhook-event-removed', scope, { base: b.pointer, head: null }, `event ${b.name} is no longer sent (gone from EventName and EventMap)`);
      continue;
    }
    const bs = signature(base.document, b);
    const hs = signature(head.document, h);
    if (bs?.name.toLowerCase() !== hs?.name.toLowerCase()) {
      collector.add('webhook-signature-header-changed', scope, { base: bs?.at ?? b.pointer, head: hs?.at ?? h.pointer }, `signature header ${bs?.name ?? '(none)'} → ${hs?.name ?? '(none)'}`);
    } else if (bs && hs && bs.shape !== hs.shape) {
      collector.add('webhook-signature-header-changed', scope, { base: bs.at, head: hs.at }, `the format of signature header ${hs.name} changed`);
    }
    compareSchemas({ collector, scope, polarity: 'webhook', baseDoc: base.document, headDoc: head.document }, [payloadAt(base.document, b)], [payloadAt(head.document, h)], '');
  }
  const names = new Set(base.events.map((e) => e.name));
  for (const h of head.events) {
    if (!names.has(h.name)) collector.add('webhook-event-added', { event: h.name, touches: eventTouches(h) }, { base: null, head: h.pointer }, `new event ${h.name}: a typed dispatcher needs onUnknownEvent or an update to handle it`);
  }
}
