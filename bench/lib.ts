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
