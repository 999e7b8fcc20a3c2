/** The outputs: text for people (default), Markdown for a pull-request comment, JSON, GitHub workflow annotations. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import type { Change } from './change.js';
import type { DiffResult } from './index.js';
import { isFailing } from './index.js';
import { acknowledgmentLine } from './overrides.js';

export const FORMATS = ['text', 'markdown', 'json', 'github', 'changelog'] as const;
export type Format = (typeof FORMATS)[number];

/** Changes that are one edit seen from several operations or events (same check, pointers, field and message). */
interface Group {
  change: Change;
  scopes: string[];
  touches: string[];
}

function scopeOf(c: Change): string {
  const l = c.location;
  return l.operation ? `${l.operation}${l.endpoint ? ` (${l.endpoint})` : ''}` : l.event ? `event ${l.event}` : 'spec';
}

export function groupChanges(changes: Change[]): Group[] {
  const groups = new Map<string, Group>();
  for (const c of changes) {
    const key = [c.id, c.level, c.location.base, c.location.head, c.location.field, c.message, c.override?.entry].join('\0');
    let g = groups.get(key);
    if (!g) {
      g = { change: c, scopes: [], touches: [] };
      groups.set(key, g);
    }
    if (!g.scopes.includes(scopeOf(c))) g.scopes.push(scopeOf(c));
    for (const t of c.touches) if (!g.touches.includes(t)) g.touches.push(t);
  }
  // Client methods first, then types and events, each in first-seen order.
  for (const g of groups.values()) g.touches = [...g.touches.filter((t) => t.startsWith('client.')), ...g.touches.filter((t) => !t.startsWith('client.'))];
  return [...groups.values()];
}

/** How many places a grouped change lists before it only counts the rest. */
export const PLACES_LISTED = 20;

function placesText(g: Group): string {
  const shown = g.scopes.slice(0, PLACES_LISTED).join(', ');
  return g.scopes.length > PLACES_LISTED ? `${shown} and ${g.scopes.length - PLACES_LISTED} more` : shown;
}

const BUMP_TEXT = { major: 'major (breaking changes)', minor: 'minor (additions or warnings, nothing breaking)', patch: 'patch (nothing a client can use or break)', none: 'none (no change)' } as const;

function bumpLine(r: DiffResult): string {
  return `semver bump for the generated packages: ${BUMP_TEXT[r.bump]}`;
}

function groupWhere(g: Group): string {
  const field = g.change.location.field;
  const scope = g.scopes.length === 1 ? g.scopes[0]! : `${g.scopes.length} places`;
  return field ? `${scope} · ${field}` : scope;
}

function where(c: Change): string {
  return c.location.field ? `${scopeOf(c)} · ${c.location.field}` : scopeOf(c);
}

function pointers(c: Change): string {
  return `base ${c.location.base ?? '(absent)'} · head ${c.location.head ?? '(absent)'}`;
}

/** Distinct lines to paste into the override file for the failing changes. */
export function acknowledgmentLines(result: DiffResult): string[] {
  return [...new Set(result.changes.filter((c) => isFailing(c, result.failOn)).map(acknowledgmentLine))];
}

function summaryLine(r: DiffResult): string {
  const s = r.summary;
  const ignored = s.ignored ? `, ${s.ignored} ignored by ${r.overridesFile}` : '';
  return `${s.breaking} breaking, ${s.warning} warning, ${s.info} info${ignored} (${groupChanges(r.changes).length} distinct); failing on ${r.failOn}: ${s.failing}`;
}

function text(r: DiffResult): string {
  const out = [`gen-card-api diff ${r.base.label} (${r.base.version}) → ${r.head.label} (${r.head.version})`];
  if (r.changes.length === 0) out.push('no changes');
  for (const g of groupChanges(r.changes)) {
    const c = g.change;
    out.push('', `${c.level.toUpperCase().padEnd(8)} ${c.id}  ${groupWhere(g)}`, `  ${c.message}`, `  why: ${c.reason}`);
    if (g.scopes.length > 1) out.push(`  in ${placesText(g)}`);
    out.push(`  ${pointers(c)}`);
    if (g.touches.length) out.push(`  touches ${g.touches.join(', ')}`);
    if (c.override) out.push(`  level ${c.defaultLevel} → ${c.level} by ${r.overridesFile} entry ${c.override.entry}: ${c.override.reason}`);
  }
  out.push('', summaryLine(r), bumpLine(r));
  for (const i of r.unusedOverrides) out.push(`note: ${r.overridesFile} entry ${i} matches no change any more; remove it`);
  if (r.summary.failing > 0) {
    out.push(
      '',
      `${r.summary.failing} unacknowledged change(s) at or above ${r.failOn}. If they are intended, acknowledge each under \`overrides:\` in ${r.overridesFile ?? 'an override file passed with --overrides (e.g. spec/diff-overrides.yaml)'}:`,
      ...acknowledgmentLines(r),
    );
  }
  return `${out.join('\n')}\n`;
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function markdown(r: DiffResult): string {
  const s = r.summary;
  const out = [
    `### Spec changes: \`${r.base.label}\` (${r.base.version}) → \`${r.head.label}\` (${r.head.version})`,
    '',
    '| level | changes |',
    '| --- | ---: |',
    `| breaking | ${s.breaking} |`,
    `| warning | ${s.warning} |`,
    `| info | ${s.info} |`,
    ...(s.ignored ? [`| ignored (override file) | ${s.ignored} |`] : []),
    '',
    s.failing > 0 ? `**${s.failing} change(s) at or above \`${r.failOn}\` fail the check.**` : `Nothing at or above \`${r.failOn}\`: the check passes.`,
    '',
    `Semver bump for the generated packages: **${r.bump}**.`,
  ];
  if (r.changes.length) {
    out.push('', '| level | check | where | change and why | touches in generated code |', '| --- | --- | --- | --- | --- |');
    for (const g of groupChanges(r.changes)) {
      const c = g.change;
      const level = c.override ? `${c.level} (was ${c.defaultLevel})` : c.level;
      const listed = g.scopes.slice(0, PLACES_LISTED).map(cell);
      if (g.scopes.length > PLACES_LISTED) listed.push(`and ${g.scopes.length - PLACES_LISTED} more`);
      const place = [...listed, ...(c.location.field ? [`\`${cell(c.location.field)}\``] : [])].join('<br>');
      out.push(`| ${level} | \`${c.id}\` | ${place} | ${cell(c.message)}<br>*${cell(c.reason)}*<br><sub>${cell(pointers(c))}</sub> | ${cell(g.touches.map((t) => `\`${t}\``).join(', '))} |`);
    }
  }
  if (s.failing > 0) out.push('', '<details><summary>How to acknowledge an intended change</summary>', '', `Add to \`${r.overridesFile ?? 'spec/diff-overrides.yaml'}\` under \`overrides:\`:`, '', '```yaml', ...acknowledgmentLines(r), '```', '', '</details>');
  return `${out.join('\n')}\n`;
}

const CHANGELOG_HEADINGS: Record<string, string> = { breaking: 'Breaking', warning: 'Needs attention', info: 'Added or improved' };

/**
 * The release's changelog for people: one section per operation and per event (then the rest), each change with
 * its level and why it matters, one line per distinct change.
 */
function changelog(r: DiffResult): string {
  const out = [`# ${r.head.version || r.head.label}`, '', `Changes since ${r.base.version || r.base.label}. Semver bump for the generated packages: **${r.bump}**.`];
  if (r.changes.length === 0) out.push('', 'No change to the contract.');
  const sections = new Map<string, Change[]>();
  for (const c of r.changes) {
    if (c.id === 'version-major-bump-missing') continue;
    const l = c.location;
    const title = l.operation ? `Operation \`${l.operation}\`${l.endpoint && l.endpoint !== l.operation ? ` (${l.endpoint})` : ''}` : l.event ? `Event \`${l.event}\`` : 'Types and components';
    const list = sections.get(title) ?? [];
    list.push(c);
    sections.set(title, list);
  }
  const order = (t: string) => (t.startsWith('Operation') ? 0 : t.startsWith('Event') ? 1 : 2);
  for (const title of [...sections.keys()].sort((a, b) => order(a) - order(b) || (a < b ? -1 : a > b ? 1 : 0))) {
    out.push('', `## ${title}`, '');
    const seen = new Set<string>();
    for (const c of sections.get(title)!) {
      const line = `- **${CHANGELOG_HEADINGS[c.level]}**: ${c.location.field ? `\`${c.location.field}\` ` : ''}${c.message}. ${c.reason[0]!.toUpperCase()}${c.reason.slice(1)}.`;
      if (seen.has(line)) continue;
      seen.add(line);
      out.push(line);
    }
  }
  return `${out.join('\n')}\n`;
}

function json(r: DiffResult): string {
  return `${JSON.stringify(
    {
      base: r.base,
      head: r.head,
      failOn: r.failOn,
      summary: r.summary,
      bump: r.bump,
      changes: r.changes,
      ignored: r.ignored,
      unusedOverrides: r.unusedOverrides,
    },
    null,
    2,
  )}\n`;
}

const parsed = new Map<string, { contents: Node | null; counter: LineCounter } | null>();

/**
 * Line (1-based) of the key a JSON pointer ends on in a YAML/JSON file, so that an annotation lands on the line
 * that names the thing (`maxLength: 4`), not on the first line of its value; the nearest key that exists when
 * the pointer goes further than the file.
 */
export function pointerLine(file: string, pointer: string): number | undefined {
  let doc = parsed.get(file);
  if (doc === undefined) {
    try {
      const counter = new LineCounter();
      const d = parseDocument(readFileSync(file, 'utf8'), { lineCounter: counter, keepSourceTokens: false });
      doc = { contents: d.contents as Node | null, counter };
    } catch {
      doc = null;
    }
    parsed.set(file, doc);
  }
  if (!doc) return undefined;
  const tokens = pointer.replace(/^#\/?/, '').split('/').filter((t) => t !== '').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  let node: unknown = doc.contents;
  let line: number | undefined;
  for (const t of tokens) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (isScalar(p.key) ? String(p.key.value) : String(p.key)) === t);
      if (!pair) break;
      const key = pair.key as Node | null;
      if (key?.range) line = doc.counter.linePos(key.range[0]).line;
      node = pair.value;
    } else if (isSeq(node)) {
      const item = node.items[Number(t)] as Node | undefined;
      if (!item) break;
      if (item.range) line = doc.counter.linePos(item.range[0]).line;
      node = item;
    } else break;
  }
  return line;
}

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}
function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function github(r: DiffResult, headFile: string | null): string {
  const command = { breaking: 'error', warning: 'warning', info: 'notice' } as const;
  const rel = headFile ? path.relative(process.cwd(), headFile) : null;
  const file = rel === null ? null : (rel.startsWith('..') ? headFile! : rel).split(path.sep).join('/');
  // One annotation per distinct change, on the line of the head's key it is about.
  const lines = groupChanges(r.changes).map((g) => {
    const c = g.change;
    const props = [];
    if (file && c.location.head) {
      props.push(`file=${escapeProperty(file)}`);
      const line = pointerLine(headFile!, c.location.head);
      if (line) props.push(`line=${line}`);
    }
    props.push(`title=${escapeProperty(`${c.id} (${c.level})`)}`);
    const place = g.scopes.length > 1 ? `${g.scopes.length} places (${placesText(g)})${c.location.field ? ` · ${c.location.field}` : ''}` : where(c);
    const body = `${place}: ${c.message}. Why: ${c.reason}${g.touches.length ? ` [touches ${g.touches.join(', ')}]` : ''}`;
    return `::${command[c.level]} ${props.join(',')}::${escapeData(body)}`;
  });
  lines.push(`gen-card-api diff: ${summaryLine(r)}`, bumpLine(r));
  if (r.summary.failing > 0) lines.push(`Acknowledge intended changes in ${r.overridesFile ?? 'an override file (--overrides)'}:`, ...acknowledgmentLines(r));
  return `${lines.join('\n')}\n`;
}

export function formatResult(result: DiffResult, format: Format, options: { headFile?: string | null } = {}): string {
  switch (format) {
    case 'markdown':
      return markdown(result);
    case 'json':
      return json(result);
    case 'github':
      return github(result, options.headFile ?? null);
    case 'changelog':
      return changelog(result);
    default:
      return text(result);
  }
}
