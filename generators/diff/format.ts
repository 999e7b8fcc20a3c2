/** The outputs: text for people (default), Markdown for a pull-request comment, JSON, GitHub workflow annotations. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Node } from 'yaml';
import type { Level } from './catalogue.js';
import type { Change, Place } from './change.js';
import type { DiffResult } from './index.js';
import { isFailing } from './index.js';
import { acknowledgmentLine } from './overrides.js';

export const FORMATS = ['text', 'markdown', 'json', 'github', 'changelog'] as const;
export type Format = (typeof FORMATS)[number];

/** How many places an entry lists before it only counts the rest. */
export const PLACES_LISTED = 20;

/** `getCard (GET /cards/{uuid})`, `GET /x` when the operation has no id, `event card.frozen`. */
export function placeText(p: Place): string {
  if (p.operation) return p.endpoint && p.endpoint !== p.operation ? `${p.operation} (${p.endpoint})` : p.operation;
  return p.event ? `event ${p.event}` : 'spec';
}

/** The places of an entry, at most `max`, then a count of the rest. */
function placesText(c: Change, max = PLACES_LISTED, show: (p: Place) => string = placeText): string {
  const names = [...new Set(c.places.map(show))];
  const listed = names.slice(0, max);
  const rest = names.length - listed.length;
  if (rest > 0) return `${names.length} places: ${listed.join(', ')} and ${rest} more`;
  return listed.length > 1 ? `${listed.slice(0, -1).join(', ')} and ${listed.at(-1)}` : (listed[0] ?? 'spec');
}

/** The shortest name of a place, for release notes: the operation id (or `METHOD /path`), or `event x`. */
function shortPlace(p: Place): string {
  return p.operation ? `\`${p.operation}\`` : p.event ? `event \`${p.event}\`` : 'the spec';
}

const SCHEMA_POINTER = /^#\/components\/schemas\/([^/]+)((?:\/.*)?)$/;

/**
 * What an entry is about, named as a reader of the spec knows it: `Card.nickname`, `Order.items[].amount` for a
 * change inside a component schema (from its deeper pointer), the field path otherwise.
 */
export function subjectOf(c: Change): string {
  const { base, head } = c.location;
  // A branch added or removed is about the schema that has the branches, not the branch (which the message names).
  const pointer = c.id.endsWith('variant-added') ? base : c.id.endsWith('variant-removed') ? head : base && head ? (base.length >= head.length ? base : head) : (head ?? base);
  const m = pointer ? SCHEMA_POINTER.exec(pointer) : null;
  if (!m) return c.location.field ?? '';
  const tokens = m[2]!.split('/').slice(1).map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  let name = m[1]!.replace(/~1/g, '/').replace(/~0/g, '~');
  for (let i = 0; i < tokens.length; i += 1) {
    const t = tokens[i]!;
    if (t === 'properties' && tokens[i + 1] !== undefined) name += `.${tokens[(i += 1)]}`;
    else if (t === 'items') name += '[]';
    else if (t === 'additionalProperties') name += '.*';
    else if ((t === 'allOf' || t === 'anyOf' || t === 'oneOf' || t === 'prefixItems') && tokens[i + 1] !== undefined) i += 1;
  }
  return name;
}

const BUMP_TEXT = { major: 'major (breaking changes)', minor: 'minor (additions or warnings, nothing breaking)', patch: 'patch (nothing a client can use or break)', none: 'none (no change)' } as const;

function bumpLine(r: DiffResult): string {
  return `semver bump for the generated packages: ${BUMP_TEXT[r.bump]}`;
}

/** Where an entry is: its one place and field, or what it is about and how many places it reaches. */
function where(c: Change): string {
  if (c.places.length === 1) {
    const field = c.places[0]!.field;
    return field ? `${placeText(c.places[0]!)} · ${field}` : placeText(c.places[0]!);
  }
  const subject = subjectOf(c);
  const reached = new Set(c.places.map(placeText)).size;
  return `${subject ? `${subject} in ` : ''}${reached} place${reached === 1 ? '' : 's'}`;
}

/** The entry as one sentence: what changed, then why it matters. */
export function sentence(c: Change): string {
  const subject = subjectOf(c);
  const text = `${subject ? `\`${subject}\`: ` : ''}${c.message}; ${c.reason}.`;
  return text[0]!.toUpperCase() + text.slice(1);
}

function pointers(c: Change): string {
  return `base ${c.location.base ?? '(absent)'} · head ${c.location.head ?? '(absent)'}`;
}

/** Distinct lines to paste into the override file for the failing changes (and the verdict). */
export function acknowledgmentLines(result: DiffResult): string[] {
  const failing = [...result.changes, ...(result.verdict ? [result.verdict] : [])].filter((c) => isFailing(c, result.failOn));
  return [...new Set(failing.map(acknowledgmentLine))];
}

/**
 * Where the user's override file is, or should be: the one given, or `diff-overrides.yaml` next to the head spec
 * in their repository (relative to the working directory; for `rev:path`, next to that path).
 */
export function overridesFileHint(r: DiffResult, headFile: string | null): { file: string; exists: boolean } {
  if (r.overridesFile) return { file: r.overridesFile, exists: true };
  let dir = '.';
  if (headFile) dir = path.relative(process.cwd(), path.dirname(headFile)) || '.';
  else {
    const rev = /^[^:]+:(.+)$/.exec(r.head.label);
    if (rev && !/^[a-z][a-z0-9+.-]*:\/\//i.test(r.head.label) && !/^[A-Za-z]:[\\/]/.test(r.head.label)) dir = path.posix.dirname(rev[1]!);
  }
  const file = dir.startsWith('..') ? 'diff-overrides.yaml' : path.posix.join(dir.split(path.sep).join('/'), 'diff-overrides.yaml');
  return { file, exists: false };
}

function hintLines(r: DiffResult, headFile: string | null): string[] {
  const hint = overridesFileHint(r, headFile);
  const how = hint.exists ? `acknowledge each under \`overrides:\` in ${hint.file}` : `create ${hint.file} with these lines under \`overrides:\` and pass it with --overrides ${hint.file}`;
  return [`${r.summary.failing} unacknowledged change(s) at or above ${r.failOn}. If they are intended, ${how}:`, ...acknowledgmentLines(r)];
}

function summaryLine(r: DiffResult): string {
  const s = r.summary;
  const ignored = s.ignored ? `, ${s.ignored} ignored by ${r.overridesFile}` : '';
  const verdict = r.verdict ? `, and info.version needs a major bump` : '';
  return `${s.breaking} breaking, ${s.warning} warning, ${s.info} info${ignored}${verdict}; failing on ${r.failOn}: ${s.failing}`;
}

const RANK: Record<Level, number> = { breaking: 0, warning: 1, info: 2 };

/** Entries at or above `level`, and how many were left out. */
function shown(r: DiffResult, level: Level): { changes: Change[]; hidden: number } {
  const changes = r.changes.filter((c) => RANK[c.level] <= RANK[level]);
  return { changes, hidden: r.changes.length - changes.length };
}

export interface FormatOptions {
  /** The head side's file, when it is one: GitHub annotations point into it, the override hint sits next to it. */
  headFile?: string | null;
  /** The lowest level printed (`info`: everything). Counts always cover every change. */
  level?: Level;
}

function text(r: DiffResult, o: FormatOptions): string {
  const out = [`gen-card-api diff ${r.base.label} (${r.base.version}) → ${r.head.label} (${r.head.version})`];
  if (r.verdict) out.push(`${r.verdict.level.toUpperCase()}: ${r.verdict.message}`);
  if (r.changes.length === 0) out.push('no changes');
  const { changes, hidden } = shown(r, o.level ?? 'info');
  for (const c of changes) {
    out.push('', `${c.level.toUpperCase().padEnd(8)} ${c.id}  ${where(c)}`, `  ${c.message}`, `  why: ${c.reason}`);
    if (c.places.length > 1) out.push(`  in ${placesText(c)}`);
    out.push(`  ${pointers(c)}`);
    if (c.touches.length) out.push(`  touches ${c.touches.join(', ')}`);
    if (c.override) out.push(`  level ${c.defaultLevel} → ${c.level} by ${r.overridesFile} entry ${c.override.entry}: ${c.override.reason}`);
  }
  if (hidden > 0) out.push('', `(${hidden} change(s) below ${o.level} not shown; --level info shows them)`);
  out.push('', summaryLine(r), bumpLine(r));
  for (const i of r.unusedOverrides) out.push(`note: ${r.overridesFile} entry ${i} matches no change any more; remove it`);
  if (r.summary.failing > 0) out.push('', ...hintLines(r, o.headFile ?? null));
  return `${out.join('\n')}\n`;
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function markdownRows(changes: Change[], listed = 5): string[] {
  const rows = ['| level | check | change and why | where | touches in generated code |', '| --- | --- | --- | --- | --- |'];
  for (const c of changes) {
    const level = c.override ? `${c.level} (was ${c.defaultLevel})` : c.level;
    // A pull-request comment is bounded (GitHub: 65,536 characters): a few places, then a count.
    const place = `${cell(placesText(c, listed))}${c.places.length === 1 && c.places[0]!.field ? ` · \`${cell(c.places[0]!.field)}\`` : ''}`;
    // The pointers are in the text, JSON and GitHub outputs; a comment names the change and where it reaches.
    rows.push(`| ${level} | \`${c.id}\` | ${cell(sentence(c))} | ${place} | ${cell(c.touches.map((t) => `\`${t}\``).join(', '))} |`);
  }
  return rows;
}

const SECTION = { breaking: 'Breaking', warning: 'Warnings', info: 'Info' } as const;
/** Characters a Markdown report keeps under GitHub's comment limit (65,536), with room for the acknowledgment block. */
const COMMENT_BUDGET = 56_000;

function markdown(r: DiffResult, o: FormatOptions): string {
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
    `Semver bump for the generated packages: **${r.bump}**.`,
    ...(r.verdict ? ['', `**Version:** ${r.verdict.message}.`] : []),
    '',
    s.failing > 0 ? `**${s.failing} change(s) at or above \`${r.failOn}\` fail the check.**` : `Nothing at or above \`${r.failOn}\`: the check passes.`,
  ];
  const level = o.level ?? 'info';
  for (const l of ['breaking', 'warning', 'info'] as const) {
    const list = r.changes.filter((c) => c.level === l);
    if (list.length === 0) continue;
    if (RANK[l] > RANK[level]) {
      out.push('', `${list.length} ${l} change(s) not shown (\`--level ${l}\` shows them).`);
      continue;
    }
    // Info entries are folded: a reviewer opens them when they want the additions. A comment that would pass
    // GitHub's limit (65,536 characters) leaves them out, and says so, rather than being refused.
    if (l === 'info') {
      const folded = ['', `<details><summary>${SECTION[l]} (${list.length})</summary>`, '', ...markdownRows(list, 1), '', '</details>'];
      if (out.join('\n').length + folded.join('\n').length > COMMENT_BUDGET) out.push('', `${list.length} info change(s) not shown: the comment would be too long for a pull request (\`--format text\` or \`json\` lists them).`);
      else out.push(...folded);
    } else out.push('', `#### ${SECTION[l]} (${list.length})`, '', ...markdownRows(list));
  }
  if (s.failing > 0) {
    const hint = overridesFileHint(r, o.headFile ?? null);
    const how = hint.exists ? `Add to \`${hint.file}\` under \`overrides:\`:` : `Create \`${hint.file}\` with these lines under \`overrides:\`, and pass it with \`--overrides ${hint.file}\`:`;
    out.push('', '<details><summary>How to acknowledge an intended change</summary>', '', how, '', '```yaml', ...acknowledgmentLines(r), '```', '', '</details>');
  }
  return `${out.join('\n')}\n`;
}

const CHANGELOG_HEADINGS = { breaking: 'Breaking changes', warning: 'Needs attention', info: 'Added or improved' } as const;

/**
 * The release notes a maintainer pastes: a summary (counts, the semver bump), then the breaking changes, then what
 * needs attention, then additions; each change once, as one sentence, with the operations and events it reaches.
 */
function changelog(r: DiffResult, o: FormatOptions): string {
  const s = r.summary;
  const counts = [`${s.breaking} breaking`, `${s.warning} needing attention`, `${s.info} added or improved`].join(', ');
  const out = [`# ${r.head.version || r.head.label}`, '', `Changes since ${r.base.version || r.base.label}: ${counts}. Semver bump for the generated packages: **${r.bump}**.`];
  if (r.verdict) out.push('', `> **Version:** ${r.verdict.message}.`);
  if (r.changes.length === 0) out.push('', 'No change to the contract.');
  const level = o.level ?? 'info';
  for (const l of ['breaking', 'warning', 'info'] as const) {
    const list = r.changes.filter((c) => c.level === l);
    if (list.length === 0 || RANK[l] > RANK[level]) continue;
    out.push('', `## ${CHANGELOG_HEADINGS[l]}`, '');
    for (const c of list) out.push(`- ${sentence(c)}${c.places.some((p) => p.operation || p.event) ? ` In ${placesText(c, 8, shortPlace)}.` : ''}`);
  }
  return `${out.join('\n')}\n`;
}

function json(r: DiffResult, o: FormatOptions): string {
  const { changes } = shown(r, o.level ?? 'info');
  return `${JSON.stringify(
    {
      base: r.base,
      head: r.head,
      failOn: r.failOn,
      summary: r.summary,
      bump: r.bump,
      verdict: r.verdict,
      policy: r.policy,
      today: r.today,
      changes,
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

function github(r: DiffResult, o: FormatOptions): string {
  const headFile = o.headFile ?? null;
  const command = { breaking: 'error', warning: 'warning', info: 'notice' } as const;
  const rel = headFile ? path.relative(process.cwd(), headFile) : null;
  const file = rel === null ? null : (rel.startsWith('..') ? headFile! : rel).split(path.sep).join('/');
  // One annotation per change, on the line of the head's key it is about; the verdict on `info.version`.
  const { changes } = shown(r, o.level ?? 'info');
  const lines = [...(r.verdict ? [r.verdict] : []), ...changes].map((c) => {
    const props = [];
    if (file && c.location.head) {
      props.push(`file=${escapeProperty(file)}`);
      const line = pointerLine(headFile!, c.location.head);
      if (line) props.push(`line=${line}`);
    }
    props.push(`title=${escapeProperty(`${c.id} (${c.level})`)}`);
    const place = c.places.length > 1 ? placesText(c) : where(c);
    const body = `${place}: ${sentence(c)}${c.touches.length ? ` [touches ${c.touches.join(', ')}]` : ''}`;
    return `::${command[c.level]} ${props.join(',')}::${escapeData(body)}`;
  });
  lines.push(`gen-card-api diff: ${summaryLine(r)}`, bumpLine(r));
  if (r.summary.failing > 0) lines.push(...hintLines(r, headFile));
  return `${lines.join('\n')}\n`;
}

export function formatResult(result: DiffResult, format: Format, options: FormatOptions = {}): string {
  switch (format) {
    case 'markdown':
      return markdown(result, options);
    case 'json':
      return json(result, options);
    case 'github':
      return github(result, options);
    case 'changelog':
      return changelog(result, options);
    default:
      return text(result, options);
  }
}
