/** Small helpers shared by the benchmarks: timing with warm-up, medians, ratio lines. */
export async function sample(fn: () => Promise<unknown> | unknown, runs: number, warmup = 1): Promise<number[]> {
  for (let i = 0; i < warmup; i += 1) await fn();
  const times: number[] = [];
  for (let i = 0; i < runs; i += 1) {
    const start = performance.now();
    await fn();
    times.push(performance.now() - start);
  }
  return times;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

export function ratio(ours: number, peer: number): string {
  return `${(ours / peer).toFixed(2)}x`;
}

/**
 * An OpenAPI document with the operations of `doc` replicated `copies` times under distinct paths, operation ids
 * and client resources: the synthetic large spec of bench/generate.ts and bench/diff.ts.
 */
export function replicateOperations(doc: any, copies: number): any {
  const out = structuredClone(doc);
  const paths: Record<string, any> = {};
  for (let i = 0; i < copies; i += 1) {
    for (const [route, item] of Object.entries<any>(doc.paths)) {
      const copy = structuredClone(item);
      for (const method of ['get', 'post']) {
        if (!copy[method]) continue;
        copy[method].operationId = `${copy[method].operationId}${i}`;
        copy[method]['x-client'] = { ...copy[method]['x-client'], resource: `${copy[method]['x-client'].resource ?? 'meta'}${i}` };
      }
      paths[`/r${i}${route}`] = copy;
    }
  }
  out.paths = paths;
  return out;
}
