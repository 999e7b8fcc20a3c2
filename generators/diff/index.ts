/**
 * `gen-card-api diff`: the breaking-change check between two versions of an OpenAPI 3.0 or 3.1 document. Each
 * side is read as plain OpenAPI (document.ts); operations, webhooks and component schemas are compared with the
 * catalogue's checks (schemas once per pair and direction, schema.ts), then the override file adjusts levels, then
 * a breaking change without a major version bump is reported, and the result names the semver bump it needs.
 */
import { compareStrings, type JsonObject } from '../model/index.js';
import { bumpOf, type Bump, type Level, type PolicyRule } from './catalogue.js';
import { Collector, type Change, type Place } from './change.js';
import { documentOf, isObject, token, type DiffDoc } from './document.js';
import { compareOperations, type Context } from './operations.js';
import { applyOverrides, type Overrides, type Policy } from './overrides.js';
import { Comparer } from './schema.js';
import { compareWebhooks } from './webhooks.js';

export { bumpOf, CHECKS, CHECK_IDS, LEVELS, POLICY, POLICY_RULES, isCheckId, isPolicyRule, renderCatalogueTable, renderPolicyTable, type Bump, type CheckId, type Level, type PolicyRule } from './catalogue.js';
export type { Change, ChangeLocation, Place } from './change.js';
export { readDocument, type DiffDoc } from './document.js';
export { acknowledgmentLine, applyOverrides, loadOverrides, parseOverrides, parsePolicyFlags, type OverrideEntry, type Overrides, type Policy } from './overrides.js';
export { loadSide, parseRevSpec, type Side } from './sides.js';
export { formatResult, FORMATS, type Format, type FormatOptions } from './format.js';
export { patternWidened } from './schema.js';

const RANK: Record<Level, number> = { breaking: 0, warning: 1, info: 2 };

/** A total order on changes, so output never depends on walk order. */
export function sortChanges(changes: Change[]): Change[] {
  const keyed = changes.map((c) => ({ c, key: [c.location.operation ?? '', c.location.event ?? '', c.id, c.location.field ?? '', c.location.base ?? '', c.location.head ?? '', c.message].join('\0') }));
  keyed.sort((a, b) => RANK[a.c.level] - RANK[b.c.level] || compareStrings(a.key, b.key));
  return keyed.map((k) => k.c);
}

/** What a diff side needs: the bundled document (an `ApiModel` or a `LoadedSpec` will do). */
export interface DiffInput {
  document: JsonObject;
}

function diffDoc(input: DiffInput, file = 'spec'): DiffDoc {
  return documentOf(file, input.document);
}

function componentSchemas(doc: JsonObject): string[] {
  const c = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
  return Object.keys(c);
}

/** Today as `YYYY-MM-DD` (UTC): the default day sunset dates are judged against. */
export function today(): string {
  return new Date().toISOString().slice(0, 10);
}

/**
 * Every change between two documents, one per operation or event it reaches, at the catalogue's levels (no policy,
 * no overrides, no version check). `today` (`YYYY-MM-DD`) judges sunset dates.
 */
export function diffModels(base: DiffInput, head: DiffInput, options: { today?: string } = {}): Change[] {
  const ctx: Context = { base: diffDoc(base), head: diffDoc(head), comparer: new Comparer(base.document, head.document), collector: new Collector(), today: options.today ?? today() };
  compareOperations(ctx);
  compareWebhooks(ctx);
  const headTypes = new Set(componentSchemas(head.document));
  const baseTypes = new Set(componentSchemas(base.document));
  const speak = (doc: DiffDoc, name: string) => (doc.toolkit ? [`type ${name}`] : []);
  for (const name of baseTypes) {
    if (!headTypes.has(name)) ctx.collector.add('type-removed', { touches: speak(ctx.base, name) }, { base: `#/components/schemas/${token(name)}`, head: null }, ctx.base.toolkit ? `exported type ${name} is no longer generated (component schema removed or renamed)` : `component schema ${name} removed or renamed`);
  }
  for (const name of headTypes) {
    if (!baseTypes.has(name)) ctx.collector.add('type-added', { touches: speak(ctx.head, name) }, { base: null, head: `#/components/schemas/${token(name)}` }, ctx.head.toolkit ? `new exported type ${name}` : `new component schema ${name}`);
  }
  return sortChanges(ctx.collector.changes);
}

function major(version: string): number | null {
  const m = /^v?(\d+)/.exec(version.trim());
  return m ? Number(m[1]) : null;
}

export type FailOn = 'breaking' | 'warning';

/** The policy's levels: a rule set to another level changes the change's level and its default (what overrides start from). */
export function applyPolicy(changes: Change[], policy: Policy): Change[] {
  return changes.map((c) => {
    const level = policy[c.id as PolicyRule];
    return level && level !== c.level ? { ...c, level, defaultLevel: level } : c;
  });
}

function placeKey(p: Place): string {
  return [p.operation ?? '', p.event ?? '', p.field ?? ''].join('\0');
}

/**
 * One entry per edit: changes with the same check, level, pointer, message and override are one edit seen from
 * several operations or events (a shared schema), merged into one change that lists every place and everything it
 * touches (client methods first). The input's order is kept (first place first).
 */
export function mergeChanges(changes: Change[]): Change[] {
  const merged = new Map<string, { change: Change; places: Map<string, Place>; touches: Set<string> }>();
  for (const c of changes) {
    // The deeper pointer names the edit: a field removed is its base property, whichever schema (a component, or
    // one that merges it with `allOf`) lost it in the head; a field added is its head property.
    const { base, head } = c.location;
    const pointer = base && head ? (base.length >= head.length ? base : head) : (head ?? base ?? '');
    const key = [c.id, c.level, c.defaultLevel, pointer, c.message, c.override?.entry ?? ''].join('\0');
    let m = merged.get(key);
    if (!m) {
      m = { change: c, places: new Map(), touches: new Set() };
      merged.set(key, m);
    }
    for (const p of c.places) if (!m.places.has(placeKey(p))) m.places.set(placeKey(p), p);
    for (const t of c.touches) m.touches.add(t);
  }
  return [...merged.values()].map(({ change, places, touches }) => {
    const all = [...touches];
    return { ...change, places: [...places.values()], touches: [...all.filter((t) => t.startsWith('client.')), ...all.filter((t) => !t.startsWith('client.'))] };
  });
}

export interface DiffResult {
  base: { label: string; version: string };
  head: { label: string; version: string };
  /** Kept changes, sorted, breaking first, levels after policy and overrides: one per edit, with every place it reaches. */
  changes: Change[];
  /** Changes an override set to `ignore`. */
  ignored: Change[];
  /**
   * The version verdict, apart from the changes it judges: `version-major-bump-missing` when breaking changes remain
   * and `info.version` keeps its major number (null otherwise, or when an override ignores it).
   */
  verdict: Change | null;
  /** The policy in force (only the rules set away from their default). */
  policy: Policy;
  /** The day sunset dates were judged against. */
  today: string;
  /** Override entries (by index) that matched no change: stale acknowledgments. */
  unusedOverrides: number[];
  overridesFile: string | null;
  failOn: FailOn;
  /** Counts of changes (one per edit, not per place); `failing` counts the verdict too when it fails the check. */
  summary: { breaking: number; warning: number; info: number; ignored: number; failing: number };
  /** The semver bump the generated packages need for the kept changes (`none` when nothing changed). */
  bump: Bump;
}

export function isFailing(change: Change, failOn: FailOn): boolean {
  return RANK[change.level] <= RANK[failOn];
}

const BUMP_RANK: Record<Bump, number> = { major: 3, minor: 2, patch: 1, none: 0 };

/** The largest bump the changes ask for. */
export function bumpFor(changes: Change[]): Bump {
  let bump: Bump = 'none';
  for (const c of changes) {
    if (c.id === 'version-major-bump-missing') continue;
    const b = bumpOf(c.id, c.level);
    if (BUMP_RANK[b] > BUMP_RANK[bump]) bump = b;
  }
  return bump;
}

/** The full run: diff, policy, overrides, one entry per edit, the version verdict, summary, bump. */
export function runDiff(
  base: { label: string; model: DiffInput },
  head: { label: string; model: DiffInput },
  options: { overrides?: Overrides | null; failOn?: FailOn; policy?: Policy; today?: string } = {},
): DiffResult {
  const overrides = options.overrides ?? null;
  const failOn = options.failOn ?? 'breaking';
  const day = options.today ?? today();
  // Flags given on the command line win over the override file's `policy:`.
  const policy: Policy = { ...(overrides?.policy ?? {}), ...(options.policy ?? {}) };
  const baseDoc = diffDoc(base.model, base.label);
  const headDoc = diffDoc(head.model, head.label);
  const raw = applyPolicy(diffModels(base.model, head.model, { today: day }), policy);
  const first = applyOverrides(raw, overrides);
  const kept = sortChanges(mergeChanges(sortChanges(first.kept)));
  let ignored = mergeChanges(sortChanges(first.ignored));
  const used = first.used;
  const breaking = kept.filter((c) => c.level === 'breaking');
  const bMajor = major(baseDoc.version);
  const hMajor = major(headDoc.version);
  let verdict: Change | null = null;
  if (breaking.length > 0 && (bMajor === null || hMajor === null || hMajor <= bMajor)) {
    const collector = new Collector();
    const n = breaking.length;
    collector.add('version-major-bump-missing', { touches: [] }, { base: '#/info/version', head: '#/info/version' }, `info.version goes from ${baseDoc.version} to ${headDoc.version} without a major bump, though ${n} change${n === 1 ? ' is' : 's are'} breaking`);
    const second = applyOverrides(collector.changes, overrides);
    verdict = second.kept[0] ?? null;
    ignored = [...ignored, ...second.ignored];
    for (const i of second.used) used.add(i);
  }
  ignored = sortChanges(ignored);
  const count = (level: Level) => kept.filter((c) => c.level === level).length;
  return {
    base: { label: base.label, version: baseDoc.version },
    head: { label: head.label, version: headDoc.version },
    changes: kept,
    ignored,
    verdict,
    policy,
    today: day,
    unusedOverrides: overrides ? overrides.entries.map((_, i) => i).filter((i) => !used.has(i)) : [],
    overridesFile: overrides?.file ?? null,
    failOn,
    summary: {
      breaking: count('breaking'),
      warning: count('warning'),
      info: count('info'),
      ignored: ignored.length,
      failing: kept.filter((c) => isFailing(c, failOn)).length + (verdict && isFailing(verdict, failOn) ? 1 : 0),
    },
    bump: bumpFor(kept),
  };
}
