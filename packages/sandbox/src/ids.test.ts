import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { timeOrderedUuid } from './ids.js';

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('timeOrderedUuid', () => {
  it('is an RFC 9562 version 7 UUID whose first 48 bits are the creation time in ms', () => {
    const before = Date.now();
    const id = timeOrderedUuid();
    expect(id).toMatch(UUID_V7);
    const ms = Number.parseInt(id.replace('-', '').slice(0, 12), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(Date.now() + 1);
  });

  it('sorts in creation order and never repeats, within one millisecond and past 4,096 ids in it', () => {
    vi.useFakeTimers({ now: new Date('2026-11-23T12:00:00.000Z'), toFake: ['Date'] });
    try {
      const ids = Array.from({ length: 10_000 }, () => timeOrderedUuid());
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual(ids);
      for (const id of ids) expect(id).toMatch(UUID_V7);
    } finally {
      vi.useRealTimers();
    }
  });

  it('stays ordered whatever the real clock does, backwards steps included', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -5_000, max: 5_000 }), { minLength: 1, maxLength: 200 }), (steps) => {
        const clock = vi.spyOn(Date, 'now');
        try {
          let now = Date.UTC(2027, 0, 1);
          const ids: string[] = [];
          for (const step of steps) {
            now += step;
            clock.mockReturnValue(now);
            ids.push(timeOrderedUuid());
          }
          const after = timeOrderedUuid();
          expect([...ids, after].sort()).toEqual([...ids, after]);
        } finally {
          clock.mockRestore();
        }
      }),
    );
  });
});
