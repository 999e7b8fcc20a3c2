/** The outputs: text for people (default), Markdown for a pull-request comment, JSON, GitHub workflow annotations. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { LineCounter, parseDocument, isNode } from 'yaml';
import type { Change } from './change.js';
import type { DiffResult } from './index.js';
import { isFailing } from './index.js';
import { acknowledgmentLine } from './overrides.js';

export const FORMATS = ['text', 'markdown', 'json', 'github'] as const;
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
    out.push('', `${c.level.toUpperCase().padEnd(8)} ${c.id}  ${groupWhere(g)}`, `  ${c.message}`);
    if (g.scopes.length > 1) out.push(`  in ${g.scopes.join(', ')}`);
    out.push(`  ${pointers(c)}`);
    if (g.touches.length) out.push(`  touches ${g.touches.join(', ')}`);
    if (c.override) out.push(`  level ${c.defaultLevel} → ${c.level} by ${r.overridesFile} entry ${c.override.entry}: ${c.override.reason}`);
  }
  out.push('', summaryLine(r));
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
  ];
  if (r.changes.length) {
    out.push('', '| level | check | where | change | touches in generated code |', '| --- | --- | --- | --- | --- |');
    for (const g of groupChanges(r.changes)) {
      const c = g.change;
      const level = c.override ? `${c.level} (was ${c.defaultLevel})` : c.level;
      const place = [...g.scopes.map(cell), ...(c.location.field ? [`\`${cell(c.location.field)}\``] : [])].join('<br>');
      out.push(`| ${level} | \`${c.id}\` | ${place} | ${cell(c.message)}<br><sub>${cell(pointers(c))}</sub> | ${cell(g.touches.map((t) => `\`${t}\``).join(', '))} |`);
    }
  }
  if (s.failing > 0) out.push('', '<details><summary>How to acknowledge an intended change</summary>', '', `Add to \`${r.overridesFile ?? 'spec/diff-overrides.yaml'}\` under \`overrides:\`:`, '', '```yaml', ...acknowledgmentLines(r), '```', '', '</details>');
  return `${out.join('\n')}\n`;
}

function json(r: DiffResult): string {
  return `${JSON.stringify(
    {
      base: r.base,
      head: r.head,
      failOn: r.failOn,
      summary: r.summary,
      changes: r.changes,
      ignored: r.ignored,
      unusedOverrides: r.unusedOverrides,
    },
    null,
    2,
  )}\n`;
}

/** Line of a JSON pointer in a YAML/JSON file (1-based), when the pointer is inside that file. */
export function pointerLine(file: string, pointer: string): number | undefined {
  try {
    const counter = new LineCounter();
    const doc = parseDocument(readFileSync(file, 'utf8'), { lineCounter: counter });
    const tokens = pointer.replace(/^#\/?/, '').split('/').filter((t) => t !== '').map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
    for (let n = tokens.length; n >= 0; n -= 1) {
      const node = doc.getIn(tokens.slice(0, n), true);
      if (isNode(node) && node.range) return counter.linePos(node.range[0]).line;
    }
  } catch {
    return undefined;
  }
  return undefined;
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
  const lines = r.changes.map((c) => {
    const props = [];
    if (file && c.location.head) {
      props.push(`file=${escapeProperty(file)}`);
      const line = pointerLine(headFile!, c.location.head);
      if (line) props.push(`line=${line}`);
    }
    props.push(`title=${escapeProperty(`${c.id} (${c.level})`)}`);
    const body = `${where(c)}: ${c.message}${c.touches.length ? ` [touches ${c.touches.join(', ')}]` : ''}`;
    return `::${command[c.level]} ${props.join(',')}::${escapeData(body)}`;
  });
  lines.push(`gen-card-api diff: ${summaryLine(r)}`);
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
    default:
      return text(result);
  }
}
