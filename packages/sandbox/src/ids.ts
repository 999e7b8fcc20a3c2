import { randomUUID } from 'node:crypto';

let lastMs = 0;
let sequence = 0;

/**
 * A time-ordered UUID (version 7, RFC 9562): 48 bits of Unix milliseconds, a 12-bit sequence within the millisecond
 * (RFC 9562 6.2, method 1: seeded at random below 2^11 each millisecond, so a burst of 2,048 fits; past 2^12 the
 * timestamp moves on by one), then the 62 random bits of a version 4 UUID.
 *
 * For the ids the sandbox creates and stores in unique indexes (cards, orders, transactions, ledger groups): ids
 * that grow with time land at the end of each B-tree, where random version 4 ids land anywhere, split pages all
 * over the index and make every insert touch cold pages. Still a UUID to every client (the spec says `format: uuid`).
 * The time is the process's real clock, not the sandbox clock (which tests move at will): it orders ids, it does
 * not date them. Monotonic within the process even if the real clock steps back.
 */
export function timeOrderedUuid(): string {
  const random = randomUUID();
  const now = Date.now();
  if (now > lastMs) {
    lastMs = now;
    sequence = Number.parseInt(random.slice(15, 18), 16) & 0x7ff;
  } else if (++sequence > 0xfff) {
    lastMs++;
    sequence = 0;
  }
  const time = lastMs.toString(16).padStart(12, '0');
  return `${time.slice(0, 8)}-${time.slice(8)}-7${sequence.toString(16).padStart(3, '0')}-${random.slice(19)}`;
}
