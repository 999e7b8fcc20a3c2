/**
 * Walks the webhooks of both sides (`webhooks`, or 3.0's `x-webhooks`). A payload is written by the service and
 * read by the receiver: response polarity, with its own ids.
 */
import type { Scope } from './change.js';
import { canonical, isJsonMedia, resolveRef, type Event, type Media } from './document.js';
import { compareContent, type Context } from './operations.js';
import { eventTouches } from './touches.js';

/** The signature header of an event (its required header parameter) and its schema flattened to a comparable text. */
function signature(ctx: Context, side: 'base' | 'head', event: Event): { name: string; at: string; shape: string } | null {
  for (const p of event.params.values()) {
    if (p.in !== 'header' || !p.required) continue;
    const n = (side === 'base' ? ctx.comparer.base : ctx.comparer.head).of(p.schema ? [p.schema] : []);
    const shape = canonical([n.types ? [...n.types].sort() : null, n.format ?? null, n.pattern ?? null, n.bounds]);
    return { name: p.name, at: p.at, shape };
  }
  return null;
}

function payloadMedia(event: Event): Media | null {
  if (!event.body) return null;
  for (const [type, m] of event.body.content) if (isJsonMedia(type)) return m;
  return [...event.body.content.values()][0] ?? null;
}

/** The component schema of the whole payload, by name. */
function payloadType(ctx: Context, side: 'base' | 'head', event: Event): string | undefined {
  const m = payloadMedia(event);
  return m?.schema ? resolveRef(side === 'base' ? ctx.base.document : ctx.head.document, m.schema.node, m.schema.at).name : undefined;
}

export function compareWebhooks(ctx: Context): void {
  const { base, head, collector } = ctx;
  const heads = new Map(head.events.map((e) => [e.name, e]));
  for (const b of base.events) {
    const h = heads.get(b.name);
    const scope: Scope = { event: b.name, touches: eventTouches(base, b, payloadType(ctx, 'base', b)) };
    if (!h) {
      collector.add('webhook-event-removed', scope, { base: b.pointer, head: null }, `event ${b.name} is no longer sent${base.toolkit ? ' (gone from EventName and EventMap)' : ''}`);
      continue;
    }
    const bs = signature(ctx, 'base', b);
    const hs = signature(ctx, 'head', h);
    if (bs?.name.toLowerCase() !== hs?.name.toLowerCase()) {
      collector.add('webhook-signature-header-changed', scope, { base: bs?.at ?? b.pointer, head: hs?.at ?? h.pointer }, `signature header ${bs?.name ?? '(none)'} → ${hs?.name ?? '(none)'}`);
    } else if (bs && hs && bs.shape !== hs.shape) {
      collector.add('webhook-signature-header-changed', scope, { base: bs.at, head: hs.at }, `the format of signature header ${hs.name} changed`);
    }
    if (b.body && h.body) compareContent(ctx, scope, 'webhook', b.body.content, h.body.content, { base: b.body.at, head: h.body.at }, new Set());
  }
  const names = new Set(base.events.map((e) => e.name));
  for (const h of head.events) {
    if (!names.has(h.name)) collector.add('webhook-event-added', { event: h.name, touches: eventTouches(head, h, payloadType(ctx, 'head', h)) }, { base: null, head: h.pointer }, `new event ${h.name}${head.toolkit ? ': a typed dispatcher needs onUnknownEvent or an update to handle it' : ''}`);
  }
}
