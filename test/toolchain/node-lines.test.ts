/**
 * The Node lines the project supports (22 from 22.13, 24 and 26: 22.13 is the first 22 with `node:sqlite` unflagged,
 * 20 has reached end of life), held in one place each reader looks: every package's `engines.node`, the READMEs'
 * "Needs Node.js" sentences, and the lines CI and `make test-lines` run (scripts/node-lines.sh).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/spec.js';

const SUPPORTED = ['22.13.0', '24.0.0', '26.0.0'];
const UNSUPPORTED = ['20.19.0', '20.99.0', '22.12.0', '21.7.0', '23.11.0'];
/** How every README states it. */
const STATED = 'Node.js 22.13+ or 24+ (tested on 22, 24 and 26';

const packageDirs = ['.', ...readdirSync(path.join(ROOT, 'packages')).map((name) => path.join('packages', name))];
const manifests = packageDirs.map((dir) => ({ dir, manifest: JSON.parse(readFileSync(path.join(ROOT, dir, 'package.json'), 'utf8')) as { engines?: { node?: string } } }));

describe('the supported Node lines', () => {
  it('every package.json (the root and packages/*) declares engines.node admitting 22.13, 24 and 26, and not 20 or 22.12', () => {
    expect(manifests.length).toBeGreaterThan(6);
    for (const { dir, manifest } of manifests) {
      const range = manifest.engines?.node;
      expect(range, `${dir}/package.json engines.node`).toBeDefined();
      expect(semver.validRange(range!), `${dir}: ${range}`).not.toBeNull();
      for (const version of SUPPORTED) expect(semver.satisfies(version, range!), `${dir}: ${range} admits ${version}`).toBe(true);
      for (const version of UNSUPPORTED) expect(semver.satisfies(version, range!), `${dir}: ${range} admits ${version}`).toBe(false);
    }
  });

  it('every README that states a Node requirement states this one', () => {
    const readmes = packageDirs.map((dir) => path.join(dir, 'README.md'));
    let stating = 0;
    for (const readme of readmes) {
      const text = readFileSync(path.join(ROOT, readme), 'utf8').replace(/\s+/g, ' ');
      expect(text, readme).not.toMatch(/Node(\.js)? ?>= ?2[01]\b|Node(\.js)? 20\.\d+ or later/);
      for (const match of text.matchAll(/(?:Needs|Requires|besides) Node\.js /g)) {
        const stated = text.slice(match.index + match[0].length - 'Node.js '.length, match.index + 120);
        expect(stated.startsWith(STATED), `${readme}: ${stated}`).toBe(true);
        stating += 1;
      }
    }
    // The root README and each package's but the types-only one say it.
    expect(stating).toBeGreaterThanOrEqual(6);
  });

  it('the lines CI tests (scripts/node-lines.sh) are the supported ones', () => {
    const script = readFileSync(path.join(ROOT, 'scripts/node-lines.sh'), 'utf8');
    const lines = /^SUPPORTED_LINES="([\d ]+)"$/m.exec(script)?.[1]?.split(' ');
    expect(lines).toEqual(SUPPORTED.map((v) => String(semver.major(v))));
  });
});
