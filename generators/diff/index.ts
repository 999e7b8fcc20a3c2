/**
 * `gen-card-api diff`: the breaking-change check between two versions of the spec. Both sides are models from
 * the generators' loader; operations, webhooks and exported types are compared with the catalogue's checks,
 * then the override file adjusts levels, then a breaking change without a major version bump is reported.
 */
import type { ApiModel } from '../model/index.js';
import { compareStrings } from '../model/index.js';
import type { Level } from './catalogue.js';
import { Collector, type Change } from './change.js';
import { compareOperations } from './operations.js';
import { applyOverrides, type Overrides } from './overrides.js';
import { compareWebhooks } from './webhooks.js';

export { CHECKS, CHECK_IDS, LEVELS, isCheckId, renderCatalogueTable, type CheckId, type Level } from './catalogue.js';
export type { Change, ChangeLocation } from './change.js';
export { acknowledgmentLine, applyOverrides, loadOverrides, parseOverrides, type OverrideEntry, type Overrides } from './overrides.js';
export { loadSide, parseRevSpec, type Side } from './sides.js';
export { formatResult, FORMATS, type Format } from './format.js';
export { patternWidened } from './schema.js';

const RANK: Record<Level, number> = { breaking: 0, warning: 1, info: 2 };

/** A total order on changes, so output never depends on walk order. */
export function sortChanges(changes: Change[]): Change[] {
  const key = (c: Change) => [c.location.operation ?? '', c.location.event ?? '', c.id, c.location.field ?? '', c.location.base ?? '', c.location.head ?? '', c.message].join('\0');
  return [...changes].sort((a, b) => RANK[a.level] - RANK[b.level] || compareStrings(key(a), key(b)));
}

/** Every change between two models, at the catalogue's levels (no overrides, no version check). */
export function diffModels(base: ApiModel, head: ApiModel): Change[] {
  const collector = new Collector();
  compareOperations(base, head, collector);
  compareWebhooks(base, head, collector);
  const headTypes = new Set(head.schemas.map((s) => s.name));
  const baseTypes = new Set(base.schemas.map((s) => s.name));
  for (const s of base.schemas) {
    if (!headTypes.has(s.name)) collector.add('type-removed', { touches: [`type ${s.name}`] }, { base: s.pointer, head: null }, `exported type ${s.name} is no longer generated (component schema removed or renamed)`);
  }
  for (const s of head.schemas) {
    if (!baseTypes.has(s.name)) collector.add('type-added', { touches: [`type ${s.name}`] }, { base: null, head: s.pointer }, `new exported type ${s.name}`);
  }
  return sortChanges(collector.changes);
}

function major(version: string): number | null {
  const m = /^v?(\d+)/.exec(version.trim());
  return m ? Number(m[1]) : null;
}

export type FailOn = 'breaking' | 'warning';

export interface DiffResult {
  base: { label: string; version: string };
  head: { label: string; version: string };
  /** Kept changes, sorted, breaking first, levels after overrides. */
  changes: Change[];
  /** Changes an override set to `ignore`. */
  ignored: Change[];
  /** Override entries (by index) that matched no change: stale acknowledgments. */
  unusedOverrides: number[];
  overridesFile: string | null;
  failOn: FailOn;
  summary: { breaking: number; warning: number; info: number; ignored: number; failing: number };
}

export function isFailing(change: Change, failOn: FailOn): boolean {
  return RANK[change.level] <= RANK[failOn];
}

/** The full run: diff, overrides, the version rule, summary. */
export function runDiff(
  base: { label: string; model: ApiModel },
  head: { label: string; model: ApiModel },
  options: { overrides?: Overrides | null; failOn?: FailOn } = {},
): DiffResult {
  const overrides = options.overrides ?? null;
  const failOn = options.failOn ?? 'breaking';
  const raw = diffModels(base.model, head.model);
  const first = applyOverrides(raw, overrides);
  let kept = first.kept;
  let ignored = first.ignored;
  const used = first.used;
  const breaking = kept.filter((c) => c.level === 'breaking');
  const bMajor = major(base.model.version);
  const hMajor = major(head.model.version);
  if (breaking.length > 0 && (bMajor === null || hMajor === null || hMajor <= bMajor)) {
    const collector = new Collector();
    collector.add('version-major-bump-missing', { touches: [] }, { base: '#/info/version', head: '#/info/version' }, `${breaking.length} breaking change(s) but info.version goes from ${base.model.version} to ${head.model.version} without a major bump`);
    const second = applyOverrides(collector.changes, overrides);
    kept = [...kept, ...second.kept];
    ignored = [...ignored, ...second.ignored];
    for (const i of second.used) used.add(i);
  }
  kept = sortChanges(kept);
  ignored = sortChanges(ignored);
  const count = (level: Level) => kept.filter((c) => c.level === level).length;
  return {
    base: { label: base.label, version: base.model.version },
    head: { label: head.label, version: head.model.version },
    changes: kept,
    ignored,
    unusedOverrides: overrides ? overrides.entries.map((_, i) => i).filter((i) => !used.has(i)) : [],
    overridesFile: overrides?.file ?? null,
    failOn,
    summary: { breaking: count('breaking'), warning: count('warning'), info: count('info'), ignored: ignored.length, failing: kept.filter((c) => isFailing(c, failOn)).length },
  };
}
