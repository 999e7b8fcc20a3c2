/**
 * The severity-override file: a committed list of acknowledged changes, and the team's policy. `policy:` sets the
 * level of the checks that are policy rather than fact (catalogue.ts `POLICY`), for every change of that check;
 * `overrides:` acknowledges changes one by one. Each entry names a check id, optionally
 * where (`at`: an operation id, an event name, `METHOD /path`, a field, or a JSON pointer on either side, which
 * also matches everything under it), the level to use (`breaking`, `warning`, `info` or `ignore`) and a reason.
 *
 * ```yaml
 * policy:
 *   operation-id-changed: breaking
 *   response-optional-field-removed: breaking
 * overrides:
 *   - id: response-field-became-optional
 *     at: '#/components/schemas/Order/properties/related_card_uuid'
 *     level: warning
 *     reason: clients generated from v1 already read it as optional (D8)
 * ```
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse } from 'yaml';
import { docPath } from '../core/assets.js';
import { SpecError, SpecErrors } from '../model/index.js';
import { CHECK_IDS, isCheckId, isPolicyRule, LEVELS, POLICY_RULES, type CheckId, type Level, type PolicyRule } from './catalogue.js';
import type { Change } from './change.js';

export interface OverrideEntry {
  id: CheckId;
  at?: string;
  level: Level | 'ignore';
  reason: string;
}

/** Levels of policy checks, set away from the catalogue's defaults. */
export type Policy = Partial<Record<PolicyRule, Level>>;

export interface Overrides {
  file: string;
  entries: OverrideEntry[];
  policy: Policy;
}

/** One policy setting (`id`, `level`): the reason it is refused, or null. */
function policyProblem(id: string, level: unknown): string | null {
  if (!isPolicyRule(id)) return `${JSON.stringify(id)} is not a policy rule; the rules are ${POLICY_RULES.join(', ')}`;
  if (typeof level !== 'string' || !(LEVELS as readonly string[]).includes(level)) return `the level of ${id} must be breaking, warning or info`;
  return null;
}

/** `--policy <id>=<level>` flags: the policy they set, or the first problem (a usage error). */
export function parsePolicyFlags(flags: readonly string[]): Policy {
  const policy: Policy = {};
  for (const flag of flags) {
    const m = /^([^=]+)=(.*)$/.exec(flag);
    if (!m) throw new Error(`--policy ${flag}: expected <rule>=<level>, e.g. operation-id-changed=breaking`);
    const problem = policyProblem(m[1]!.trim(), m[2]!.trim());
    if (problem) throw new Error(`--policy ${flag}: ${problem}`);
    policy[m[1]!.trim() as PolicyRule] = m[2]!.trim() as Level;
  }
  return policy;
}

function display(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel.startsWith('..') ? file : rel;
}

/** Validates parsed override data; every problem is reported with its pointer. */
export function parseOverrides(data: unknown, file: string): Overrides {
  const problems: SpecError[] = [];
  const fail = (at: string, reason: string) => problems.push(new SpecError(file, at, reason));
  const entries: OverrideEntry[] = [];
  const policy: Policy = {};
  const root = data ?? {};
  if (typeof root !== 'object' || Array.isArray(root) || (Object.keys(root).some((k) => k !== 'overrides' && k !== 'policy'))) {
    fail('#', 'the file must be an object with the keys `policy` (rule: level) and `overrides` (a list of { id, at?, level, reason })');
  } else {
    const rules = (root as { policy?: unknown }).policy ?? {};
    if (typeof rules !== 'object' || rules === null || Array.isArray(rules)) fail('#/policy', '`policy` must be an object of rule: level');
    else {
      for (const [id, level] of Object.entries(rules)) {
        const problem = policyProblem(id, level);
        if (problem) fail(`#/policy/${id.replace(/~/g, '~0').replace(/\//g, '~1')}`, problem);
        else policy[id as PolicyRule] = level as Level;
      }
    }
    const list = (root as { overrides?: unknown }).overrides ?? [];
    if (!Array.isArray(list)) fail('#/overrides', '`overrides` must be a list');
    else {
      list.forEach((raw, i) => {
        const at = `#/overrides/${i}`;
        if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return fail(at, 'an entry must be an object { id, at?, level, reason }');
        const e = raw as Record<string, unknown>;
        const unknownKeys = Object.keys(e).filter((k) => !['id', 'at', 'level', 'reason'].includes(k));
        if (unknownKeys.length) fail(at, `unknown key(s) ${unknownKeys.join(', ')}; allowed: id, at, level, reason`);
        if (typeof e.id !== 'string' || !isCheckId(e.id)) return fail(`${at}/id`, `unknown check id ${JSON.stringify(e.id)}; see ${docPath('docs/diff-checks.md')} (${CHECK_IDS.length} checks)`);
        if (e.at !== undefined && (typeof e.at !== 'string' || e.at === '')) return fail(`${at}/at`, '`at` must be a non-empty string: an operation id, an event name, `METHOD /path`, a field or a JSON pointer');
        if (typeof e.level !== 'string' || !([...LEVELS, 'ignore'] as string[]).includes(e.level)) return fail(`${at}/level`, '`level` must be breaking, warning, info or ignore');
        if (typeof e.reason !== 'string' || e.reason.trim() === '') return fail(`${at}/reason`, 'every override needs a `reason` saying why the change is acceptable');
        entries.push({ id: e.id, ...(typeof e.at === 'string' ? { at: e.at } : {}), level: e.level as Level | 'ignore', reason: e.reason.trim() });
      });
    }
  }
  if (problems.length) throw new SpecErrors(problems);
  return { file, entries, policy };
}

export async function loadOverrides(file: string): Promise<Overrides> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new SpecError(display(file), '#', code === 'ENOENT' ? 'override file not found' : `cannot read the override file (${code})`);
  }
  let data: unknown;
  try {
    data = parse(text);
  } catch (error) {
    throw new SpecError(display(file), '#', `not valid YAML: ${error instanceof Error ? error.message : String(error)}`);
  }
  return parseOverrides(data, display(file));
}

function underPointer(pointer: string | null, at: string): boolean {
  return pointer !== null && (pointer === at || pointer.startsWith(`${at}/`));
}

/** Whether an entry applies to a change. */
export function matches(entry: OverrideEntry, change: Change): boolean {
  if (entry.id !== change.id) return false;
  if (entry.at === undefined) return true;
  const l = change.location;
  if (entry.at.startsWith('#')) return underPointer(l.base, entry.at) || underPointer(l.head, entry.at);
  return entry.at === l.operation || entry.at === l.event || entry.at === l.endpoint || entry.at === l.field;
}

/**
 * Applies the entries (the first that matches wins). Returns the kept changes (levels adjusted), the ignored
 * ones, and the indexes of entries that matched nothing (stale acknowledgments).
 */
export function applyOverrides(changes: Change[], overrides: Overrides | null): { kept: Change[]; ignored: Change[]; used: Set<number> } {
  const kept: Change[] = [];
  const ignored: Change[] = [];
  const used = new Set<number>();
  for (const change of changes) {
    const index = overrides ? overrides.entries.findIndex((e) => matches(e, change)) : -1;
    if (index < 0) {
      kept.push(change);
      continue;
    }
    used.add(index);
    const entry = overrides!.entries[index]!;
    const adjusted: Change = { ...change, override: { reason: entry.reason, entry: index } };
    if (entry.level === 'ignore') ignored.push(adjusted);
    else kept.push({ ...adjusted, level: entry.level });
  }
  return { kept, ignored, used };
}

/** The line to add to the override file to acknowledge one change (scoped as narrowly as is still readable). */
export function acknowledgmentLine(change: Change): string {
  const { base, head } = change.location;
  const pointer = base && head ? (base.length > head.length ? base : head) : (head ?? base);
  const at = pointer ?? change.location.operation ?? change.location.event;
  const atText = at ? ` at: '${at}',` : '';
  return `  - { id: ${change.id},${atText} level: warning, reason: '<why this is acceptable>' }`;
}
