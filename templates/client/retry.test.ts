import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BACKOFF_BASE_MS, BACKOFF_CAP_MS, backoffDelay, isRetryableStatus, parseRetryAfter, sleep } from './retry.js';

describe('backoffDelay (full jitter)', () => {
  it.each([
    [0, 0, 0],
    [0, 0.5, 250],
    [1, 0.5, 500],
    [2, 0.5, 1000],
    [3, 0.999, 3996],
    [4, 0.5, 4000], // window 8000 = cap
    [5, 0.5, 4000], // capped: min(8000, 16000)
    [30, 0.999999, 7999],
  ])('retry %i with random %d waits %i ms', (retry, r, want) => {
    expect(backoffDelay(retry, () => r)).toBe(want);
  });

  it('stays within [0, min(cap, base * 2^retry)) for any random draw', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 60 }), fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true }), (retry, r) => {
        const d = backoffDelay(retry, () => r);
        expect(d).toBeGreaterThanOrEqual(0);
        expect(d).toBeLessThan(Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** retry));
      }),
    );
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it.each([
    [null, null],
    ['0', 0],
    ['7', 7000],
    [' 30 ', 30_000],
    ['Sun, 01 Mar 2026 12:00:09 GMT', 9000],
    ['Sun, 01 Mar 2026 11:59:00 GMT', 0], // in the past
    ['soon', null],
    ['-5', null],
    ['1.5', null],
  ])('%j -> %j ms', (value, want) => {
    expect(parseRetryAfter(value, now)).toBe(want);
  });
});

describe('isRetryableStatus', () => {
  it.each([
    [408, true],
    [429, true],
    [500, true],
    [503, true],
    [599, true],
    [400, false],
    [401, false],
    [402, false],
    [403, false],
    [404, false],
    [409, false],
    [422, false],
    [200, false],
  ])('%i -> %s', (status, want) => {
    expect(isRetryableStatus(status)).toBe(want);
  });
});

describe('sleep', () => {
  it('resolves after the delay', async () => {
    const t = Date.now();
    await sleep(15);
    expect(Date.now() - t).toBeGreaterThanOrEqual(10);
  });

  it('rejects with the reason when aborted, before or during the wait', async () => {
    await expect(sleep(10_000, AbortSignal.abort(new Error('pre')))).rejects.toThrow('pre');
    const ac = new AbortController();
    const p = sleep(10_000, ac.signal);
    ac.abort(new Error('mid'));
    await expect(p).rejects.toThrow('mid');
  });
});
