/**
 * A registry on loopback that serves the public packages a README block installs (`npm install openapi-fetch`,
 * `npm install -D typescript @types/node`) from this checkout's node_modules, so the block runs as written with no
 * network: each package at the version the workspace installed, packed by `npm pack` on first request. Anything
 * not in node_modules is a 404, so a block that needs more fails here rather than reaching the public registry.
 * (Our own packages are not served: the README installs gen-card-api before these blocks, see test/registry for
 * the published path through Verdaccio.)
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

interface Packed {
  manifest: Record<string, unknown> & { name: string; version: string };
  file: string;
  integrity: string;
  shasum: string;
}

export interface LocalRegistry {
  url: string;
  /** Names of the packages npm asked for, in order. */
  requested: string[];
  close(): Promise<void>;
}

/** Starts the registry; `root` holds node_modules, `dir` receives the tarballs. */
export async function startLocalRegistry(root: string, dir: string, env: NodeJS.ProcessEnv): Promise<LocalRegistry> {
  mkdirSync(dir, { recursive: true });
  const packed = new Map<string, Promise<Packed | null>>();
  const requested: string[] = [];

  const pack = (name: string): Promise<Packed | null> => {
    let result = packed.get(name);
    if (result === undefined) {
      result = (async () => {
        const folder = path.join(root, 'node_modules', name);
        let manifest: Packed['manifest'];
        try {
          manifest = JSON.parse(readFileSync(path.join(folder, 'package.json'), 'utf8')) as Packed['manifest'];
        } catch {
          return null;
        }
        const { stdout } = await run('npm', ['pack', folder, '--pack-destination', dir, '--ignore-scripts', '--json'], { cwd: dir, env, maxBuffer: 64 * 1024 * 1024 });
        const [info] = JSON.parse(stdout) as Array<{ filename: string }>;
        const file = path.join(dir, info!.filename);
        const bytes = readFileSync(file);
        return {
          manifest,
          file,
          integrity: `sha512-${createHash('sha512').update(bytes).digest('base64')}`,
          shasum: createHash('sha1').update(bytes).digest('hex'),
        };
      })();
      packed.set(name, result);
    }
    return result;
  };

  let url = '';
  const server: Server = createServer((req, res) => {
    void (async () => {
      const pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
      const tarball = /^\/-\/tarball\/(.+)$/.exec(pathname);
      const name = tarball ? tarball[1]! : pathname.slice(1);
      if (!/^(@[a-z0-9._-]+\/)?[a-z0-9._-]+$/.test(name)) {
        res.writeHead(404).end();
        return;
      }
      const found = await pack(name);
      if (found === null) {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not found"}');
        return;
      }
      if (tarball) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(readFileSync(found.file));
        return;
      }
      requested.push(name);
      const { manifest } = found;
      const version = {
        name: manifest.name,
        version: manifest.version,
        ...Object.fromEntries(['dependencies', 'optionalDependencies', 'peerDependencies', 'peerDependenciesMeta', 'bin', 'engines', 'os', 'cpu'].filter((key) => key in manifest).map((key) => [key, manifest[key]])),
        dist: { tarball: `${url}-/tarball/${name}`, integrity: found.integrity, shasum: found.shasum },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ name: manifest.name, 'dist-tags': { latest: manifest.version }, versions: { [manifest.version]: version } }));
    })().catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500).end(String(error));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as { port: number }).port}/`;
  return {
    url,
    requested,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
