import type { Context } from './context.js';
import type { SandboxEvent } from './types.js';
import { enqueueDeliveries } from './webhooks.js';

interface EventRow {
  id: number;
  workspace_id: number;
  event: string;
  occurred_at: string;
  data: string;
}

function toEnvelope(row: EventRow): SandboxEvent {
  return { event: row.event, event_id: row.id, occurred_at: row.occurred_at, workspace_id: row.workspace_id, data: JSON.parse(row.data) as Record<string, unknown> };
}

/**
 * Inserts an event into the outbox. Must be called inside the write transaction that makes
 * the state change, so that the event exists exactly when the change does; the row id is the
 * stable `event_id` (section 6.1). `occurred_at` is the transaction's clock time. The deliveries
 * to the subscribed endpoints are queued in the same transaction (see `enqueueDeliveries`).
 */
export function recordEvent(ctx: Context, workspaceId: number, event: string, data: Record<string, unknown>): SandboxEvent {
  if (!ctx.db.inTransaction) throw new Error(`recordEvent(${event}) outside a write transaction`);
  const occurredAt = ctx.nowIso();
  const json = JSON.stringify(data);
  const inserted = ctx.db.pluck<[number, string, string, string], number>('INSERT INTO events (workspace_id, event, occurred_at, data) VALUES (?, ?, ?, ?) RETURNING id').get(workspaceId, event, occurredAt, json)!;
  const envelope: SandboxEvent = { event, event_id: inserted, occurred_at: occurredAt, workspace_id: workspaceId, data: JSON.parse(json) as Record<string, unknown> };
  enqueueDeliveries(ctx, envelope);
  ctx.queueEvent(envelope);
  return envelope;
}

/** Card base fields shared by the `card.*` events (section 6.4). */
export function cardBase(card: { uuid: string; workspace_id: number; cardholder_type: string; pan_last4: string; status: string }): Record<string, unknown> {
  return { card_uuid: card.uuid, workspace_id: card.workspace_id, cardholder_type: card.cardholder_type, pan_last4: card.pan_last4, status: card.status };
}

/** The outbox service: read what happened, in order, for the later webhook delivery. */
export interface EventsService {
  /**
   * Events with `event_id` greater than `afterId`, oldest first.
   * @param afterId last id already seen; 0 for everything
   * @param options.limit at most this many (default 1000)
   * @param options.workspaceId only this workspace's events
   */
  since(afterId: number, options?: { limit?: number; workspaceId?: number }): SandboxEvent[];
  /** Calls `listener` after each committed write, once per event, in order. Returns an unsubscribe function. */
  onEvent(listener: (event: SandboxEvent) => void): () => void;
}

/** Creates the events service; `listeners` is the set the sandbox's publish step calls. */
export function createEventsService(ctx: Context, listeners: Set<(event: SandboxEvent) => void>): EventsService {
  return {
    since(afterId, options = {}) {
      const limit = options.limit ?? 1000;
      const rows =
        options.workspaceId === undefined
          ? ctx.db.prepare<[number, number], EventRow>('SELECT * FROM events WHERE id > ? ORDER BY id LIMIT ?').all(afterId, limit)
          : ctx.db.prepare<[number, number, number], EventRow>('SELECT * FROM events WHERE id > ? AND workspace_id = ? ORDER BY id LIMIT ?').all(afterId, options.workspaceId, limit);
      return rows.map(toEnvelope);
    },
    onEvent(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
