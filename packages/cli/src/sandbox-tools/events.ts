/**
 * `gen-card-api events list` and `gen-card-api events resend <event_id>`, over the sandbox's delivery log (the
 * control API): what was sent where, with which outcome, and a resend of the stored bytes with a fresh signature.
 */
import { resolveTarget, SandboxApi } from './api.js';
import { loadDocs } from './docs.js';
import { CliError, type Output } from './errors.js';
import { listDeliveries, listEndpoints, type Delivery } from './deliveries.js';
import { expandGlobs, unknownName } from './suggest.js';
import { jsonLine, terminalSafe } from '../terminal.js';

/** Options of {@link runEventsList}. */
export interface EventsListOptions {
  baseUrl?: string | undefined;
  token?: string | undefined;
  /** Event codes or globs, comma-separated. */
  event?: string | undefined;
  status?: string | undefined;
  endpoint?: number | undefined;
  /** The newest this many (default 20). */
  limit?: number;
  format?: 'text' | 'json';
}

/** The delivery statuses of the control document. */
function deliveryStatuses(schemas: Record<string, any> | undefined): string[] {
  return (schemas?.DeliveryStatus?.enum as string[] | undefined) ?? [];
}

/** The widths of a table's columns, so that each row lines up. */
function table(rows: string[][]): string[] {
  const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((cell, i) => (i === r.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  '));
}

/** Lists deliveries, oldest first among the newest `limit`. */
export async function runEventsList(options: EventsListOptions, output: Output): Promise<Delivery[]> {
  const docs = await loadDocs();
  const statuses = deliveryStatuses((docs.control.document as any).components?.schemas);
  if (options.status !== undefined && !statuses.includes(options.status)) {
    const { message, hint } = unknownName('delivery status', options.status, statuses);
    throw new CliError(message, hint);
  }
  const names =
    options.event === undefined
      ? undefined
      : expandGlobs(options.event, docs.events, ({ message, hint }) => {
          throw new CliError(message, hint);
        });
  const limit = options.limit ?? 20;
  const api = new SandboxApi(resolveTarget(options, docs), docs);
  const query = { status: options.status, endpoint_id: options.endpoint };
  let deliveries: Delivery[];
  if (names === undefined || names.length === 1) deliveries = await listDeliveries(api, { ...query, event: names?.[0], limit });
  else {
    // Several codes: the control API filters by one, so the newest of the log are read and filtered here.
    const wanted = new Set(names);
    deliveries = (await listDeliveries(api, { ...query, limit: 1000 })).filter((d) => wanted.has(d.event)).slice(-limit);
  }
  if (options.format === 'json') {
    for (const d of deliveries) output.out(jsonLine(d));
    return deliveries;
  }
  if (deliveries.length === 0) {
    output.log('no deliveries (the sandbox records one per event and subscribed endpoint: start gen-card-api listen, then trigger an event)');
    return deliveries;
  }
  const rows = [['DELIVERY', 'EVENT_ID', 'EVENT', 'STATUS', 'ATTEMPTS', 'LAST', 'ENDPOINT', 'CREATED']];
  // Escaped before the widths are measured, so that the columns line up as printed.
  for (const d of deliveries) rows.push([String(d.id), String(d.event_id), d.event, d.status, String(d.attempts), d.last_status === null ? (d.last_error ?? '-') : String(d.last_status), String(d.endpoint_id), d.created_at].map(terminalSafe));
  for (const line of table(rows)) output.out(line);
  return deliveries;
}

/** Options of {@link runEventsResend}. */
export interface EventsResendOptions {
  eventId: number;
  baseUrl?: string | undefined;
  token?: string | undefined;
  /** Only the delivery to this endpoint. */
  endpoint?: number | undefined;
  /** Longest wait for each resent delivery's attempt; 0 returns once queued. Default 15 s. */
  waitMs?: number;
}

const DONE = new Set(['succeeded', 'failed', 'cancelled']);

/**
 * Resends an event to every active endpoint that received it (or to `endpoint`): the sandbox sends the stored
 * bytes again with a fresh signature timestamp. Waits for each attempt's outcome and prints it.
 */
export async function runEventsResend(options: EventsResendOptions, output: Output): Promise<Delivery[]> {
  const docs = await loadDocs();
  const api = new SandboxApi(resolveTarget(options, docs), docs);
  let deliveries = await listDeliveries(api, { event_id: options.eventId });
  if (options.endpoint !== undefined) deliveries = deliveries.filter((d) => d.endpoint_id === options.endpoint);
  if (deliveries.length === 0) throw new CliError(`no delivery of event ${options.eventId}${options.endpoint !== undefined ? ` to endpoint ${options.endpoint}` : ''} in the sandbox's log`, 'gen-card-api events list shows the event ids (an event sent to no endpoint has no delivery)');
  const endpoints = new Map((await listEndpoints(api)).map((e) => [e.id, e]));
  const queued: Delivery[] = [];
  for (const d of deliveries) {
    const endpoint = endpoints.get(d.endpoint_id);
    if (endpoint?.status !== 'active') {
      output.log(`event ${d.event_id}: skipped delivery ${d.id}: endpoint ${d.endpoint_id} is disabled (${endpoint?.disabled_reason ?? 'gone'}); start gen-card-api listen (it enables its own) or enable it through the control API`);
      continue;
    }
    queued.push((await api.call('redeliverWebhook', { path: { delivery_id: d.id } }, { quiet: true })).body.data as Delivery);
  }
  if (queued.length === 0) throw new CliError(`every endpoint that received event ${options.eventId} is disabled`, 'start gen-card-api listen, which enables its endpoint, then resend');
  const waitMs = options.waitMs ?? 15_000;
  const deadline = Date.now() + waitMs;
  const results: Delivery[] = [];
  for (const q of queued) {
    let current: Delivery = q;
    // Attempted once the count passes the queued one, or the delivery is final (a failed or cancelled resend).
    while (waitMs > 0 && Date.now() < deadline && !(current.attempts > q.attempts || (DONE.has(current.status) && current.status !== 'succeeded'))) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      current = (await listDeliveries(api, { event_id: options.eventId })).find((d) => d.id === q.id) ?? current;
    }
    results.push(current);
    const url = endpoints.get(current.endpoint_id)?.url ?? '';
    const outcome =
      current.attempts > q.attempts || DONE.has(current.status)
        ? `${current.status}, answered ${current.last_status ?? current.last_error ?? '-'}`
        : waitMs === 0
          ? 'queued'
          : `still ${current.status} after ${waitMs / 1000} s`;
    output.out(`event ${current.event_id} (${current.event}): delivery ${current.id} resent to endpoint ${current.endpoint_id} ${url}: ${outcome}`);
  }
  return results;
}
