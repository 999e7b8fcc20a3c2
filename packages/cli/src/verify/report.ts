/**
 * Report formatters: text for people, JSON for tools, JUnit XML for CI. The report holds only what the checks
 * recorded (messages, request ids, event ids, idempotency keys); `redact` is a last guard that blanks the token
 * should it ever appear in a message.
 */
import { terminalSafe } from '../terminal.js';
import type { CheckResult, VerifyReport } from './checks.js';

export type ReportFormat = 'text' | 'json' | 'junit';

const MARK: Record<CheckResult['status'], string> = { pass: 'PASS', fail: 'FAIL', skipped: 'SKIP' };

/**
 * The report for people. Every string in it may come from the server (a `request_id`, an error message, a field
 * value quoted in a detail) or from the spec, so each is passed through `terminalSafe` as it is placed: the only
 * line breaks and the only control characters in the text are the report's own.
 */
export function formatText(report: VerifyReport): string {
  const t = terminalSafe;
  const lines = [`gen-card-api verify ${t(report.baseUrl)} (spec ${t(report.spec)}; writes ${report.mode.writes ? 'on' : 'off'}, webhooks ${report.mode.webhooks ? 'on' : 'off'}, private key ${report.mode.privateKey ? 'on' : 'off'}; seed ${report.seed}: --seed ${report.seed} replays the generated inputs)`, ''];
  if (report.stopped) lines.push(`STOPPED (${t(report.stopped.reason)}): ${t(report.stopped.message)}`, '');
  for (const c of report.checks) {
    lines.push(`${MARK[c.status]}  ${t(c.id).padEnd(34)} ${t(c.title)}`);
    if (c.status === 'skipped') lines.push(`      skipped: ${t(c.details[0] ?? '')}`);
    if (c.status === 'fail') for (const d of c.details.slice(0, 10)) lines.push(`      - ${t(d)}`);
    if (c.status === 'fail' && c.details.length > 10) lines.push(`      ... ${c.details.length - 10} more`);
    if (c.evidence.length > 0) lines.push(`      evidence: ${c.evidence.slice(0, c.status === 'fail' ? 10 : 3).map(t).join(', ')}${c.evidence.length > (c.status === 'fail' ? 10 : 3) ? ', ...' : ''}`);
  }
  const s = report.summary;
  lines.push('', `${s.total} checks: ${s.passed} passed, ${s.failed} failed, ${s.skipped} skipped in ${(report.durationMs / 1000).toFixed(1)} s (${report.requests} requests)${report.stopped ? `; stopped (${t(report.stopped.reason)})` : ''}`);
  return `${lines.join('\n')}\n`;
}

export function formatJson(report: VerifyReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}

const xml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD]/g, '');

export function formatJunit(report: VerifyReport): string {
  const s = report.summary;
  // A stopped run is one more test case, in error: CI shows why the run ended, not only what it skipped.
  const tests = s.total + (report.stopped ? 1 : 0);
  const errors = report.stopped ? 1 : 0;
  const out = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="gen-card-api verify" tests="${tests}" failures="${s.failed}" errors="${errors}" skipped="${s.skipped}" time="${(report.durationMs / 1000).toFixed(3)}">`,
    `  <testsuite name="${xml(`verify ${report.baseUrl}`)}" tests="${tests}" failures="${s.failed}" errors="${errors}" skipped="${s.skipped}" timestamp="${report.startedAt}">`,
  ];
  if (report.stopped) {
    out.push('    <testcase classname="verify.run" name="run">', `      <error type="${xml(report.stopped.reason)}" message="${xml(report.stopped.message)}">${xml(report.stopped.message)}</error>`, '    </testcase>');
  }
  for (const c of report.checks) {
    const group = c.id.split('.')[0]!;
    out.push(`    <testcase classname="verify.${xml(group)}" name="${xml(c.id)}">`);
    if (c.status === 'fail') out.push(`      <failure message="${xml(c.details[0] ?? 'failed')}">${xml([...c.details, `evidence: ${c.evidence.join(', ')}`].join('\n'))}</failure>`);
    if (c.status === 'skipped') out.push(`      <skipped message="${xml(c.details[0] ?? '')}"/>`);
    if (c.status === 'pass') out.push(`      <system-out>${xml(`${c.title}\nevidence: ${c.evidence.join(', ')}`)}</system-out>`);
    out.push('    </testcase>');
  }
  out.push('  </testsuite>', '</testsuites>', '');
  return out.join('\n');
}

export function formatReport(report: VerifyReport, format: ReportFormat): string {
  return format === 'json' ? formatJson(report) : format === 'junit' ? formatJunit(report) : formatText(report);
}

/** Replaces every occurrence of the secrets in a text. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 4) out = out.split(secret).join('***');
  return out;
}
