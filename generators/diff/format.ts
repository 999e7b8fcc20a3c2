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

function where(c: Change): string {
  const l = c.location;
  const scope = l.operation ? `${l.operation}${l.endpoint ? ` (${l.endpoint})` : ''}` : l.event ? `event ${l.event}` : 'spec';
  return l.field ? `${scope} · ${l.field}` : scope;
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
  return `${s.breaking} breaking, ${s.warning} warning, ${s.info} info${ignored}; failing on ${r.failOn}: ${s.failing}`;
}

function text(r: DiffResult): string {
  const out = [`gen-card-api diff ${r.base.label} (${r.base.version}) → ${r.head.label} (${r.head.version})`];
  if (r.changes.length === 0) out.push('no changes');
  for (const c of r.changes) {
    out.push('', `${c.level.toUpperCase().padEnd(8)} ${c.id}  ${where(c)}`, `  ${c.message}`, `  ${pointers(c)}`);
    if (c.touches.length) out.push(`  touches ${c.touches.join(', ')}`);
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
    for (const c of r.changes) {
      const level = c.override ? `${c.level} (was ${c.defaultLevel})` : c.level;
      out.push(`| ${level} | \`${c.id}\` | ${cell(where(c))} | ${cell(c.message)}<br><sub>${cell(pointers(c))}</sub> | ${cell(c.touches.map((t) => `\`${t}\``).join(', '))} |`);
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
