/** One reported change and the collector that the walkers fill. */
import { CHECKS, isCheckId, type CheckId, type Level } from './catalogue.js';

export interface ChangeLocation {
  /** operationId of the operation the change is in (base's id, or head's for an added operation). */
  operation?: string;
  /** `METHOD /path` of that operation. */
  endpoint?: string;
  /** Event code (key under `webhooks`) the change is in. */
  event?: string;
  /** Field path from the body or parameter root, e.g. `data.card_uuid`, `query per_page`. */
  field?: string;
  /** JSON pointer in the base document, null when the thing does not exist there. */
  base: string | null;
  /** JSON pointer in the head document, null when the thing does not exist there. */
  head: string | null;
}

/** One place a change reaches: an operation (id and `METHOD /path`) or an event, and the field path from there. */
export interface Place {
  operation?: string;
  endpoint?: string;
  event?: string;
  field?: string;
}

export interface Change {
  id: CheckId;
  level: Level;
  /** The catalogue's level, before the override file. */
  defaultLevel: Level;
  location: ChangeLocation;
  message: string;
  /** Why it matters to an integrator, in one line (the check's reason). */
  reason: string;
  /** What it touches in the generated code: client methods, exported types, event names. */
  touches: string[];
  /**
   * Every operation and event the change reaches (one edit of a shared schema is one change): `location` names the
   * first of them. A change straight from the walk has one place; `runDiff` merges the places of one edit.
   */
  places: Place[];
  /** Set when an override entry changed the level; its reason. */
  override?: { reason: string; entry: number };
}

/** The scope a walker is in: where and what generated code an emitted change belongs to. */
export interface Scope {
  operation?: string;
  endpoint?: string;
  event?: string;
  touches: string[];
}

export class Collector {
  readonly changes: Change[] = [];
  readonly #seen = new Set<string>();

  add(id: string, scope: Scope, where: { base: string | null; head: string | null; field?: string }, message: string, extraTouches: string[] = []): void {
    if (!isCheckId(id)) throw new Error(`internal: check ${id} is not in the catalogue`);
    // One edit seen twice in one operation or event (two responses sharing a schema) is one change there.
    const key = [id, scope.operation ?? '', scope.event ?? '', where.base ?? '', where.head ?? '', message].join('\0');
    if (this.#seen.has(key)) return;
    this.#seen.add(key);
    const level = CHECKS[id].level;
    const location: ChangeLocation = { base: where.base, head: where.head };
    if (scope.operation !== undefined) location.operation = scope.operation;
    if (scope.endpoint !== undefined) location.endpoint = scope.endpoint;
    if (scope.event !== undefined) location.event = scope.event;
    if (where.field !== undefined && where.field !== '') location.field = where.field;
    const touches = [...new Set([...scope.touches, ...extraTouches])];
    const { base: _b, head: _h, ...place } = location;
    this.changes.push({ id, level, defaultLevel: level, location, message, reason: CHECKS[id].why, touches, places: [place] });
  }
}
