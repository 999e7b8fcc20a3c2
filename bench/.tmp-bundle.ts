import { createConfig } from '@redocly/openapi-core';
import { bundleSpec, readSpecBytes } from '../generators/model/load.js';
const t0 = performance.now();
const r = await bundleSpec('/tmp/scratch-gh/23.0.2/package/generated/api.github.com.json', await createConfig({}));
const t1 = performance.now();
console.log((t1 - t0).toFixed(0), 'ms', r.problems.length, Object.keys((r.bundle.parsed as any).paths).length, process.memoryUsage().rss / 1e6);
