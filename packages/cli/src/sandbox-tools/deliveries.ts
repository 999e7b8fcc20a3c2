/**
 * The sandbox's delivery log as `trigger`, `events` and fixtures read it, through the control API: which endpoints
 * would receive an event, the newest delivery so far, and the deliveries an action produced.
 */
// Types only (erased from the build): the CLI never loads @card-api/sandbox to read a sandbox's answers.
import type { SandboxControlComponents } from '@card-api/sandbox';
import type { SandboxApi } from './api.js';

type Json = Record<string, any>;

type Schemas = SandboxControlComponents['schemas'];

/** A delivery as the control API lists it (the control document's schema). */
export type Delivery = Schemas['WebhookDelivery'];

/** An endpoint as the control API lists it. */
export type Endpoint = Schemas['WebhookEndpoint'];

/** Whether a subscription (`'*'`, codes and `<prefix>.*` patterns, as the control document defines it) covers `code`. */
export function subscribes(events: Endpoint['events'], code: string): boolean {
  return events === '*' || events.some((p) => p === '*' || p === code || (p.endsWith('.*') && code.startsWith(p.slice(0, -1))));
}

export async function listEndpoints(api: SandboxApi): Promise<Endpoint[]> {
  return (await api.call('listWebhookEndpoints', {}, { quiet: true })).body.data as Endpoint[];
}

export async function listDeliveries(api: SandboxApi, query: { event?: string; event_id?: number; endpoint_id?: number; status?: string; limit?: number } = {}): Promise<Delivery[]> {
  const defined = Object.fromEntries(Object.entries(query).filter(([, v]) => v !== undefined));
  return (await api.call('listWebhookDeliveries', { query: defined }, { quiet: true })).body.data as Delivery[];
}

/** The id of the newest delivery of the workspace, 0 when there is none: what an action's deliveries come after. */
export async function newestDeliveryId(api: SandboxApi): Promise<number> {
  return (await listDeliveries(api, { limit: 1 }))[0]?.id ?? 0;
}

/** The `data` of a delivery's body, or undefined when the body is not the JSON envelope. */
export function dataOf(delivery: Delivery): Json | undefined {
  try {
    const parsed = JSON.parse(delivery.body) as Json;
    return parsed && typeof parsed === 'object' && parsed.data && typeof parsed.data === 'object' ? (parsed.data as Json) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The deliveries (one per subscribed endpoint) of the first `event` recorded after delivery `after` whose data
 * `matches`, polling the log every 100 ms for at most `timeoutMs`; empty when none came.
 */
export async function waitForDeliveries(api: SandboxApi, options: { event: string; after: number; matches: (data: Json) => boolean; timeoutMs: number }): Promise<Delivery[]> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    const recent = (await listDeliveries(api, { event: options.event, limit: 100 })).filter((d) => d.id > options.after);
    const hit = recent.find((d) => {
      const data = dataOf(d);
      return data !== undefined && options.matches(data);
    });
    if (hit) return recent.filter((d) => d.event_id === hit.event_id);
    if (Date.now() >= deadline) return [];
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
