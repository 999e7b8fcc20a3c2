/**
 * The README's sandbox snippet, run by bash as written (only the port is swapped for a free one, so that
 * parallel runs do not collide): it must reach `/ping` with the token it waited for, and after its
 * `kill $!` (which stops npx, not the sandbox below it) the sandbox must exit and free the port.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT, tempDir } from '../helpers/spec.js';

const dirs: Array<() => void> = [];
afterAll(() => {
  for (const cleanup of dirs.splice(0)) cleanup();
});

/** The first sh block of the README's "A local sandbox" section. */
function readmeSnippet(): string {
  const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## A local sandbox'));
  const match = /```sh\n([\s\S]*?)```/.exec(section);
  if (!match?.[1]) throw new Error('README: no sh block under "## A local sandbox"');
  return match[1];
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Whether something accepts connections on the port. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('README sandbox snippet', () => {
  it('works when pasted into bash, and leaves the port free after kill $!', async () => {
    const snippet = readmeSnippet();
    expect(snippet).toContain('--port 4010');
    expect(snippet).toContain('kill $!');
    const port = await freePort();
    const script = snippet.replaceAll('4010', String(port));
    const { dir, cleanup } = tempDir('readme-sandbox');
    dirs.push(cleanup);

    const bash = spawn('bash', ['-c', script], {
      cwd: dir,
      // npx finds gen-card-api in the repository's node_modules (the temp dir is inside it); never the registry.
      env: { ...process.env, npm_config_offline: 'true', npm_config_update_notifier: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    bash.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    bash.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const [code] = (await once(bash, 'exit')) as [number | null];
    expect(code, stderr).toBe(0);

    // curl's output: the ping body, reached with the token the snippet read from the env file.
    const env = readFileSync(path.join(dir, 'sandbox.env'), 'utf8');
    expect(env).toMatch(new RegExp(`^CARD_API_BASE_URL=http://127\\.0\\.0\\.1:${port}/api/v1\\nCARD_API_TOKEN=\\S+\\n$`));
    expect(stdout).toContain('"workspace_slug"');

    // The sandbox notices that npx is gone and closes; poll for the port to be released (bounded).
    const deadline = Date.now() + 30_000;
    while ((await listening(port)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await listening(port), `port ${port} still held after kill $!; stderr: ${stderr}`).toBe(false);
  }, 90_000);
});
