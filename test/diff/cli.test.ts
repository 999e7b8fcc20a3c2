/**
 * `gen-card-api diff` as a user runs it (a child process): the Bar (the spec against itself exits 0 with no
 * change; a copy with a webhook payload field removed exits 1 with a breaking change naming the event), every
 * output format, every exit code, git `<revision>:<path>` sides and the override file.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempDir, writeSpecCopy } from '../helpers/spec.js';
import { ROOT } from './helpers.js';

const run = promisify(execFile);
const BIN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');
const tmp = tempDir('diff-cli');
afterAll(tmp.cleanup);

async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, 'diff', ...args], { cwd: ROOT, maxBuffer: 32 * 1024 * 1024 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

let webhookCut: string;
let warningOnly: string;
let broken: string;
let cardCut: string;
beforeAll(() => {
  const dir = (name: string) => {
    const d = path.join(tmp.dir, name);
    mkdirSync(d);
    return d;
  };
  webhookCut = writeSpecCopy(dir('webhook-cut'), (doc) => {
    delete doc.components.schemas.OrderCompletedData.properties.completed_at;
    doc.components.schemas.OrderCompletedData.required = doc.components.schemas.OrderCompletedData.required.filter((n: string) => n !== 'completed_at');
  });
  warningOnly = writeSpecCopy(dir('warning-only'), (doc) => {
    doc.paths['/cards/{uuid}'].get.deprecated = true;
  });
  // One required property removed from the shared `Card` schema (issue 34's bar).
  cardCut = writeSpecCopy(dir('card-cut'), (doc) => {
    delete doc.components.schemas.Card.properties.pan_bin;
    doc.components.schemas.Card.required = doc.components.schemas.Card.required.filter((n: string) => n !== 'pan_bin');
  });
  broken = writeSpecCopy(dir('broken'), (doc) => {
    doc.paths['/wallet'].get.responses = 'not an object';
  });
});

const SPEC = 'spec/openapi.yaml';

describe('gen-card-api diff (the Bar)', () => {
  it('the spec against itself: exit 0, no change', async () => {
    const r = await cli([SPEC, SPEC]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('no changes');
    expect(r.stdout).toContain('0 breaking, 0 warning, 0 info; failing on breaking: 0');
  });

  it('a field removed from a webhook payload: exit 1, a breaking change naming the event', async () => {
    const r = await cli([SPEC, webhookCut]);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/BREAKING\s+webhook-payload-field-removed\s+event order\.completed · data\.completed_at/);
    expect(r.stdout).toContain("EventMap['order.completed']");
    expect(r.stdout).toContain('- { id: webhook-payload-field-removed, at: \'#/components/schemas/OrderCompletedData/properties/completed_at\', level: warning');
  });
});

describe('gen-card-api diff: formats', () => {
  it('--format json: { changes: [{ id, level, location, places, message, touches }], summary, verdict }', async () => {
    const r = await cli([SPEC, webhookCut, '--format', 'json']);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.stdout);
    // The version verdict is apart from the change it judges: one breaking change, two failing (the change, the verdict).
    expect(out.summary).toMatchObject({ breaking: 1, warning: 0, info: 0, failing: 2 });
    const change = out.changes.find((c: any) => c.id === 'webhook-payload-field-removed');
    expect(change).toMatchObject({
      level: 'breaking',
      location: { event: 'order.completed', field: 'data.completed_at', base: '#/components/schemas/OrderCompletedData/properties/completed_at', head: '#/components/schemas/OrderCompletedData' },
    });
    expect(change.places).toEqual([{ event: 'order.completed', field: 'data.completed_at' }]);
    expect(change.message).toContain('removed');
    expect(out.changes.map((c: any) => c.id)).not.toContain('version-major-bump-missing');
    expect(out.verdict.id).toBe('version-major-bump-missing');
  });

  it('--format markdown: a summary table, then the changes, breaking first', async () => {
    const r = await cli([SPEC, webhookCut, '--format', 'markdown', '--fail-on', 'warning']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('| level | changes |');
    expect(r.stdout).toContain('| breaking | 1 |');
    expect(r.stdout).toContain('**Version:** info.version goes from 1.0.0 to 1.0.0 without a major bump');
    const rows = r.stdout.split('\n').filter((l) => /^\| (breaking|warning|info)( \(was \w+\))? \| `/.test(l));
    expect(rows.length).toBe(1);
    expect(r.stdout.indexOf('#### Breaking (1)')).toBeLessThan(r.stdout.indexOf(rows[0]!));
    expect(r.stdout).toContain('`webhook-payload-field-removed`');
    expect(r.stdout).toContain('How to acknowledge');
  });

  it('--format github: workflow annotations on the head file', async () => {
    const r = await cli([SPEC, warningOnly, '--format', 'github']);
    expect(r.code).toBe(0);
    const rel = path.relative(ROOT, warningOnly);
    expect(r.stdout).toMatch(new RegExp(`^::warning file=${rel.replace(/[.]/g, '\\.')},line=\\d+,title=operation-deprecated \\(warning\\)::getCard \\(GET /cards/\\{uuid\\}\\)`, 'm'));
  });
});

describe('gen-card-api diff: exit codes and overrides', () => {
  it('--fail-on warning turns a warning into exit 1; the default does not', async () => {
    expect((await cli([SPEC, warningOnly])).code).toBe(0);
    const r = await cli([SPEC, warningOnly, '--fail-on', 'warning']);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain('WARNING  operation-deprecated');
  });

  it('exit 2 on a usage error: a missing argument, an unknown format', async () => {
    const usage = await cli([SPEC]);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain("missing required argument 'head'");
    const format = await cli([SPEC, SPEC, '--format', 'xml']);
    expect(format.code).toBe(2);
    expect(format.stderr).toContain('xml');
  });

  it('exit 2 with file, pointer and reason: a missing file, an invalid spec', async () => {
    const missing = await cli([SPEC, 'nope/openapi.yaml']);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/nope\/openapi\.yaml #: file not found/);
    const bad = await cli([SPEC, broken]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/openapi\.yaml #\/paths\/~1wallet\/get\/responses: /);
  });

  it('exit 2 on an unknown revision and on an invalid override file', async () => {
    const rev = await cli(['no-such-rev-xyz:spec/openapi.yaml', SPEC]);
    expect(rev.code).toBe(2);
    expect(rev.stderr).toContain('git cannot read spec/openapi.yaml at revision no-such-rev-xyz');
    const overrides = path.join(tmp.dir, 'bad-overrides.yaml');
    writeFileSync(overrides, 'overrides:\n  - { id: response-field-removed, level: warning }\n  - { id: no-such-check, level: info, reason: x }\n');
    const o = await cli([SPEC, SPEC, '--overrides', overrides]);
    expect(o.code).toBe(2);
    expect(o.stderr).toContain('#/overrides/0/reason: every override needs a `reason`');
    expect(o.stderr).toContain('#/overrides/1/id: unknown check id "no-such-check"');
  });

  it('a git revision side: HEAD:spec/openapi.yaml against itself', async () => {
    const r = await cli(['HEAD:spec/openapi.yaml', 'HEAD:spec/openapi.yaml', '--format', 'json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).changes).toEqual([]);
  });

  it('an override downgrades an acknowledged change (exit 0); stale entries are reported', async () => {
    const file = path.join(tmp.dir, 'overrides.yaml');
    writeFileSync(
      file,
      [
        'overrides:',
        "  - { id: webhook-payload-field-removed, at: order.completed, level: warning, reason: 'receivers were told in advance' }",
        "  - { id: response-field-removed, at: getCard, level: info, reason: 'stale' }",
        '',
      ].join('\n'),
    );
    const r = await cli([SPEC, webhookCut, '--overrides', file]);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('WARNING  webhook-payload-field-removed');
    expect(r.stdout).toContain('level breaking → warning by');
    expect(r.stdout).not.toContain('version-major-bump-missing');
    expect(r.stdout).toContain('0 breaking, 1 warning, 0 info; failing on breaking: 0');
    expect(r.stdout).toContain('entry 1 matches no change any more');
  });
});

describe('gen-card-api diff: why, semver bump, changelog, annotation lines (issue 27)', () => {
  it('text says why for each change and names the bump; json carries `bump`', async () => {
    const r = await cli([SPEC, webhookCut]);
    expect(r.stdout).toContain('  why: a receiver that reads the field gets undefined');
    expect(r.stdout).toContain('semver bump for the generated packages: major');
    const j = JSON.parse((await cli([SPEC, webhookCut, '--format', 'json'])).stdout);
    expect(j.bump).toBe('major');
    expect(j.changes[0].reason.length).toBeGreaterThan(10);
    expect(JSON.parse((await cli([SPEC, warningOnly, '--format', 'json'])).stdout).bump).toBe('minor');
    expect(JSON.parse((await cli([SPEC, SPEC, '--format', 'json'])).stdout).bump).toBe('none');
  });

  it('--format changelog: release notes that open with a summary, then the breaking changes, each once with where it reaches', async () => {
    const r = await cli([SPEC, webhookCut, '--format', 'changelog']);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^# 1\.0\.0\n\nChanges since 1\.0\.0: 1 breaking, 0 needing attention, 0 added or improved\. Semver bump for the generated packages: \*\*major\*\*\./);
    expect(r.stdout).toContain('## Breaking changes\n\n- `OrderCompletedData.completed_at`: field removed; a receiver that reads the field gets undefined. In event `order.completed`.');
    const w = await cli([SPEC, warningOnly, '--format', 'changelog']);
    expect(w.stdout).toContain('## Needs attention\n\n- GET /cards/{uuid} is deprecated; callers keep working for now, but should move off it before it is removed. In `getCard`.');
  });

  it('--format github puts the annotation on the line of the key that changed', async () => {
    const r = await cli([SPEC, webhookCut, '--format', 'github']);
    const m = /^::error file=[^,]+,line=(\d+),title=webhook-payload-field-removed/m.exec(r.stdout);
    expect(m).not.toBeNull();
    const lines = readFileSync(webhookCut, 'utf8').split('\n');
    // The head pointer is the schema that lost the field: its key line is `OrderCompletedData:`.
    expect(lines[Number(m![1]) - 1]).toMatch(/^\s+OrderCompletedData:\s*$/);
    const w = await cli([SPEC, warningOnly, '--format', 'github']);
    const d = /^::warning file=[^,]+,line=(\d+),title=operation-deprecated/m.exec(w.stdout);
    expect(readFileSync(warningOnly, 'utf8').split('\n')[Number(d![1]) - 1]).toMatch(/^\s+deprecated: true\s*$/);
  });
});

describe('gen-card-api diff: each change once, breaking first (issue 34)', () => {
  it('a required property removed from the shared Card schema: at most 2 breaking entries besides the verdict; the changelog opens with them', async () => {
    const j = JSON.parse((await cli([SPEC, cardCut, '--format', 'json'])).stdout);
    const breaking = j.changes.filter((c: any) => c.level === 'breaking');
    expect(breaking.length).toBeGreaterThan(0);
    expect(breaking.length).toBeLessThanOrEqual(2);
    expect(j.summary.breaking).toBe(breaking.length);
    expect(j.verdict.id).toBe('version-major-bump-missing');
    // Every operation that returns a card is a place of the one entry, not an entry of its own.
    const removed = breaking.find((c: any) => c.id === 'response-field-removed');
    expect(removed.places.map((p: any) => p.operation)).toEqual(expect.arrayContaining(['getCard', 'listCards']));
    const log = (await cli([SPEC, cardCut, '--format', 'changelog'])).stdout;
    const sections = log.split('\n').filter((l) => l.startsWith('## '));
    expect(sections[0]).toBe('## Breaking changes');
    expect(log).toContain('- `Card.pan_bin`: field removed; a client that reads the field gets undefined. In `getCard` and `listCards`.');
  });

  it('--level leaves out what is below it; Markdown folds info entries; the counts cover everything', async () => {
    mkdirSync(path.join(tmp.dir, 'card-cut-added'));
    const added = writeSpecCopy(path.join(tmp.dir, 'card-cut-added'), (doc) => {
      delete doc.components.schemas.Card.properties.pan_bin;
      doc.components.schemas.Card.required = doc.components.schemas.Card.required.filter((n: string) => n !== 'pan_bin');
      doc.components.schemas.Card.properties.nickname = { type: 'string', description: 'A name the cardholder chose.' };
    });
    const md = (await cli([SPEC, added, '--format', 'markdown'])).stdout;
    expect(md).toContain('| info | 1 |');
    expect(md).toMatch(/<details><summary>Info \(1\)<\/summary>\n\n\| level \| check/);
    expect(md.indexOf('#### Breaking (1)')).toBeLessThan(md.indexOf('<details><summary>Info'));
    const text = (await cli([SPEC, added, '--level', 'breaking'])).stdout;
    expect(text).not.toContain('INFO     response-field-added');
    expect(text).toContain('(1 change(s) below breaking not shown; --level info shows them)');
    expect(text).toContain('1 breaking, 0 warning, 1 info, and info.version needs a major bump; failing on breaking: 2');
  });

  it('the override hint names a file next to the head spec (to create), not this repository\'s', async () => {
    const r = await cli([SPEC, cardCut]);
    const hint = `${path.relative(ROOT, path.dirname(cardCut)).split(path.sep).join('/')}/diff-overrides.yaml`;
    expect(r.stdout).toContain(`create ${hint} with these lines under \`overrides:\` and pass it with --overrides ${hint}:`);
    expect(r.stdout).not.toContain('spec/diff-overrides.yaml');
  });

  it('--policy sets a rule; a bad rule or date is a usage error (exit 2)', async () => {
    mkdirSync(path.join(tmp.dir, 'renamed'));
    const renamed = writeSpecCopy(path.join(tmp.dir, 'renamed'), (doc) => (doc.paths['/wallet'].get.operationId = 'readWallet'));
    expect((await cli([SPEC, renamed])).code).toBe(0);
    const strict = await cli([SPEC, renamed, '--policy', 'operation-id-changed=breaking']);
    expect(strict.code).toBe(1);
    expect(strict.stdout).toContain('BREAKING operation-id-changed');
    const bad = await cli([SPEC, renamed, '--policy', 'response-field-removed=info']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('is not a policy rule');
    const date = await cli([SPEC, renamed, '--date', 'tomorrow']);
    expect(date.code).toBe(2);
    expect(date.stderr).toContain('--date tomorrow: expected a day as YYYY-MM-DD');
  });
});
