/**
 * The bar of `gen-card-api listen` and `trigger`, measured with real processes:
 *
 *   node --conditions @card-api/source --import tsx scripts/listen-trigger-times.ts
 *
 * starts `gen-card-api sandbox` and `gen-card-api listen --forward-to <app>` as processes, and an app in this
 * process whose receiver, built with `@card-api/webhooks`, verifies every delivery with the secret listen wrote.
 * Then, for each webhook event of the spec, it runs `gen-card-api trigger <event>` as a process and times from the
 * spawn to the moment the app verified that event (the event id trigger printed). It ends with `events resend`
 * (byte-identical body?) and a misspelled event (exit 2 with a suggestion?). Prints a table; exit 1 when a case
 * misses its bar (30 s per event, exit 0 of every trigger, identical bytes, exit 2), 0 otherwise.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadDocs } from '../packages/cli/src/sandbox-tools/docs.js';
// The app of the listen tests: a receiver built with @card-api/webhooks that keeps what it verified, and when.
import { App } from '../test/listen/app.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const BIN = path.join(ROOT, 'packages/cli/bin/gen-card-api.js');
const BAR_MS = 30_000;

function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, ms: performance.now() - started }));
  });
}

function background(args: string[], env: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  child.stderr!.on('data', () => undefined);
  return child;
}

/** KEY=value lines of a file written whole by --env-out, once it exists (bounded). */
async function envFile(file: string, child: ChildProcess, timeoutMs = 120_000): Promise<Record<string, string>> {
  const deadline = Date.now() + timeoutMs;
  while (!existsSync(file)) {
    if (child.exitCode !== null) throw new Error(`${file}: the process exited with ${child.exitCode} before writing it`);
    if (Date.now() > deadline) throw new Error(`${file} not written within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

async function main(): Promise<number> {
  const dir = mkdtempSync(path.join(tmpdir(), 'listen-trigger-'));
  const children: ChildProcess[] = [];
  const app = await App.start();
  try {
    console.log(`load average at start: ${loadavg().map((l) => l.toFixed(1)).join(' ')} (${(await import('node:os')).cpus().length} cores)`);
    const events = (await loadDocs()).events;
    const sandbox = background(['sandbox', '--port', '0', '--rate-limit', '0', '--ip-rate-limit', '0', '--env-out', path.join(dir, 'sandbox.env')]);
    children.push(sandbox);
    const env = await envFile(path.join(dir, 'sandbox.env'), sandbox);
    const appUrl = app.url;
    const listen = background(['listen', '--forward-to', appUrl, '--env-out', path.join(dir, 'listen.env')], env);
    children.push(listen);
    const { CARD_API_WEBHOOK_SECRET: secret } = await envFile(path.join(dir, 'listen.env'), listen);
    app.secret = secret!;
    console.log(`sandbox ${env.CARD_API_BASE_URL}; listen forwarding to ${appUrl}; secret from listen's --env-out\n`);

    let failed = 0;
    const rows: string[][] = [['event', 'trigger exit', 'trigger process', 'trigger → verified receipt', 'event id']];
    const times: number[] = [];
    for (const event of events) {
      const started = performance.now();
      const triggered = await run(['trigger', event], env);
      const eventId = Number(new RegExp(`^${event.replace(/\./g, '\\.')} event (\\d+):`, 'm').exec(triggered.stdout)?.[1]);
      let receipt = 'not received';
      if (triggered.code === 0 && Number.isInteger(eventId)) {
        try {
          await app.until(() => app.verifiedAt(eventId) !== undefined, `event ${eventId}`, BAR_MS);
          const ms = app.verifiedAt(eventId)! - started;
          times.push(ms);
          receipt = `${(ms / 1000).toFixed(2)} s`;
          if (ms > BAR_MS) failed++;
        } catch {
          failed++;
        }
      } else failed++;
      rows.push([event, String(triggered.code), `${(triggered.ms / 1000).toFixed(2)} s`, receipt, Number.isInteger(eventId) ? String(eventId) : '-']);
      if (triggered.code !== 0) console.error(triggered.stderr);
    }
    const widths = rows[0]!.map((_, i) => Math.max(...rows.map((r) => r[i]!.length)));
    for (const row of rows) console.log(row.map((c, i) => c.padEnd(widths[i]!)).join('  '));
    times.sort((a, b) => a - b);
    if (times.length > 0) console.log(`\ntrigger → verified receipt over ${times.length} events: median ${(times[Math.floor(times.length / 2)]! / 1000).toFixed(2)} s, max ${(times.at(-1)! / 1000).toFixed(2)} s (bar ${BAR_MS / 1000} s each)`);

    // Resend: the first verified event again, byte for byte.
    const first = app.received.find((r) => r.outcome === 'handled')!;
    const firstId = (JSON.parse(first.body) as { event_id: number }).event_id;
    const resent = await run(['events', 'resend', String(firstId)], env);
    await app.until(() => app.requestsOf(firstId).length > 1, `the resend of event ${firstId}`, BAR_MS).catch(() => undefined);
    const again = app.requestsOf(firstId).at(-1);
    const identical = again !== undefined && again !== first && again.body === first.body;
    const t = (s: string) => Number(/t=(\d+)/.exec(s)?.[1]);
    console.log(`events resend ${firstId}: exit ${resent.code}, body byte-identical: ${identical ? 'yes' : 'NO'}, verified again: ${again?.outcome ?? '-'}, signature t ${t(first.signature)} then ${again ? t(again.signature) : '-'}`);
    if (resent.code !== 0 || !identical) failed++;

    const misspelled = await run(['trigger', 'card.transaction.declinded'], env);
    console.log(`trigger card.transaction.declinded: exit ${misspelled.code}, ${misspelled.stderr.trim().split('\n').join(' / ')}`);
    if (misspelled.code !== 2 || !misspelled.stderr.includes('did you mean card.transaction.declined?')) failed++;
    console.log(`load average at end: ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    return failed === 0 ? 0 : 1;
  } finally {
    for (const child of children.reverse()) {
      child.kill('SIGTERM');
      if (child.exitCode === null) await once(child, 'exit');
    }
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

process.exitCode = await main();
