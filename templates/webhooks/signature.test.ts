import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { orderCompleted, realisticBody, type TestEvent } from './__fixtures__/events.js';
import { independentSignature } from './__fixtures__/sha256.js';
import { WebhookVerificationError, type WebhookVerificationReason } from './errors.js';
import { parseSignatureHeader } from './header.js';
import { constructEvent, signPayload } from './signature.js';
import { constructEventAsync, signPayloadAsync } from './signature-web.js';
import type { ConstructEventOptions, RawBody, WebhookSecrets } from './types.js';

const SECRET = 'whsec_test_0123456789abcdefSECRET';
const OTHER = 'whsec_other_fedcba9876543210';
const T = 1_767_225_600; // 2026-01-01T00:00:00Z
const AT_T = { now: T * 1000 };
const enc = new TextEncoder();

type Verify = (body: RawBody, header: string | null | undefined, secrets: WebhookSecrets, options?: ConstructEventOptions) => Promise<TestEvent>;
type Sign = (body: RawBody, secret: string, options?: { timestamp?: number }) => Promise<string>;

// One suite, two implementations (stripe-node's habit): every vector runs on the Node and the WebCrypto path.
const paths: { name: string; verify: Verify; sign: Sign; otherSign: Sign }[] = [
  {
    name: 'node:crypto',
    verify: async (...args) => constructEvent<TestEvent>(...args),
    sign: async (...args) => signPayload(...args),
    otherSign: signPayloadAsync,
  },
  {
    name: 'WebCrypto',
    verify: (...args) => constructEventAsync<TestEvent>(...args),
    sign: signPayloadAsync,
    otherSign: async (...args) => signPayload(...args),
  },
];

async function reasonOf(p: Promise<unknown>): Promise<WebhookVerificationReason> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  const e = error as WebhookVerificationError;
  expect(e.message).not.toContain(SECRET);
  expect(e.message).not.toContain(OTHER);
  return e.reason;
}

const hexOf = (header: string) => header.slice(header.indexOf('v1=') + 3);

describe.each(paths)('$name verification', ({ verify, sign, otherSign }) => {
  const body = JSON.stringify(orderCompleted());

  describe('accepts', () => {
    it('a valid string body and returns the parsed event', async () => {
      const header = await sign(body, SECRET, { timestamp: T });
      expect(await verify(body, header, SECRET, AT_T)).toEqual(orderCompleted());
    });

    it.each([
      ['Uint8Array', () => enc.encode(body)],
      ['Buffer', () => Buffer.from(body)],
      ['ArrayBuffer', () => enc.encode(body).buffer],
      ['a Uint8Array view into a larger buffer', () => new Uint8Array(enc.encode(`xx${body}yy`).buffer, 2, enc.encode(body).length)],
    ] as [string, () => RawBody][])('a %s body signed as a string', async (_, make) => {
      const header = await sign(body, SECRET, { timestamp: T });
      expect((await verify(make(), header, SECRET, AT_T)).event_id).toBe(1001);
    });

    it('a signature made by the other implementation', async () => {
      expect((await verify(body, await otherSign(body, SECRET, { timestamp: T }), SECRET, AT_T)).event).toBe('order.completed');
    });

    it('bytes that are not valid UTF-8, hashed as they are (never re-encoded through a string)', async () => {
      const bytes = new Uint8Array([...enc.encode('{"event":"x","event_id":1,"data":"'), 0xff, 0xfe, ...enc.encode('"}')]);
      const header = await sign(bytes, SECRET, { timestamp: T });
      expect((await verify(bytes, header, SECRET, AT_T)).event).toBe('x');
      // The decoded string re-encodes 0xff 0xfe as U+FFFD twice: different bytes, so no match.
      expect(await reasonOf(verify(new TextDecoder().decode(bytes), header, SECRET, AT_T))).toBe('no_matching_signature');
    });

    it('several v1 values when one of them matches', async () => {
      const good = hexOf(await sign(body, SECRET, { timestamp: T }));
      const header = `t=${T},v1=${'0'.repeat(64)},v1=${good},v1=${'f'.repeat(64)}`;
      expect((await verify(body, header, SECRET, AT_T)).event_id).toBe(1001);
    });

    it('rotated secrets: a list where any one signs', async () => {
      const header = await sign(body, SECRET, { timestamp: T });
      expect((await verify(body, header, [OTHER, SECRET], AT_T)).event_id).toBe(1001);
    });

    it('unknown schemes, spaces, tabs and uppercase hex', async () => {
      const good = hexOf(await sign(body, SECRET, { timestamp: T }));
      const header = ` v0=abc , t = ${T},\tv2=zzz,v1=${good.toUpperCase()} ,, `;
      expect((await verify(body, header, SECRET, AT_T)).event_id).toBe(1001);
    });

    it('timestamps exactly 300 s old or ahead', async () => {
      for (const t of [T - 300, T + 300]) {
        expect((await verify(body, await sign(body, SECRET, { timestamp: t }), SECRET, AT_T)).event_id).toBe(1001);
      }
    });

    it('a custom tolerance and a Date for now', async () => {
      const header = await sign(body, SECRET, { timestamp: T - 20 });
      expect(await reasonOf(verify(body, header, SECRET, { now: new Date(T * 1000), toleranceSec: 10 }))).toBe('timestamp_out_of_tolerance');
      expect((await verify(body, header, SECRET, { now: new Date(T * 1000), toleranceSec: 30 })).event_id).toBe(1001);
    });

    it('the current time when no clock is given', async () => {
      expect((await verify(body, await sign(body, SECRET), SECRET)).event_id).toBe(1001);
    });
  });

  describe('rejects', () => {
    it('a tampered body', async () => {
      const header = await sign(body, SECRET, { timestamp: T });
      expect(await reasonOf(verify(body.replace('101.00', '901.00'), header, SECRET, AT_T))).toBe('no_matching_signature');
    });

    it('a tampered signature', async () => {
      const header = await sign(body, SECRET, { timestamp: T });
      const last = header.at(-1) === '0' ? '1' : '0';
      expect(await reasonOf(verify(body, header.slice(0, -1) + last, SECRET, AT_T))).toBe('no_matching_signature');
    });

    it('a signature over another timestamp', async () => {
      const header = await sign(body, SECRET, { timestamp: T });
      expect(await reasonOf(verify(body, header.replace(`t=${T}`, `t=${T + 1}`), SECRET, AT_T))).toBe('no_matching_signature');
    });

    it('the wrong secret, alone or in a list', async () => {
      const header = await sign(body, SECRET, { timestamp: T });
      expect(await reasonOf(verify(body, header, OTHER, AT_T))).toBe('no_matching_signature');
      expect(await reasonOf(verify(body, header, [OTHER, `${SECRET}x`], AT_T))).toBe('no_matching_signature');
    });

    it('a timestamp 301 s old or 301 s in the future, even with a valid signature', async () => {
      for (const t of [T - 301, T + 301]) {
        expect(await reasonOf(verify(body, await sign(body, SECRET, { timestamp: t }), SECRET, AT_T))).toBe('timestamp_out_of_tolerance');
      }
    });

    it.each([
      ['undefined', undefined, 'missing_header'],
      ['null', null, 'missing_header'],
      ['empty', '', 'missing_header'],
      ['no t', `v1=${'a'.repeat(64)}`, 'malformed_header'],
      ['non-numeric t', `t=17672x5600,v1=${'a'.repeat(64)}`, 'malformed_header'],
      ['negative t', `t=-5,v1=${'a'.repeat(64)}`, 'malformed_header'],
      ['empty t', `t=,v1=${'a'.repeat(64)}`, 'malformed_header'],
      ['two t', `t=${T},t=${T},v1=${'a'.repeat(64)}`, 'malformed_header'],
      ['no v1', `t=${T}`, 'malformed_header'],
      ['only another scheme', `t=${T},v0=${'a'.repeat(64)}`, 'malformed_header'],
      ['v1 too short', `t=${T},v1=abc`, 'malformed_header'],
      ['v1 not hex', `t=${T},v1=${'g'.repeat(64)}`, 'malformed_header'],
      ['garbage', 'garbage', 'malformed_header'],
      ['only commas', ',,,', 'malformed_header'],
      ['a bare word among items', `t=${T},hello,v1=${'a'.repeat(64)}`, 'malformed_header'],
    ] as const)('a header that is %s', async (_, header, reason) => {
      expect(await reasonOf(verify(body, header, SECRET, AT_T))).toBe(reason);
    });

    it('an already-parsed object, explaining how to get the raw body', async () => {
      const header = await sign(body, SECRET, { timestamp: T });
      const error = await verify(JSON.parse(body) as RawBody, header, SECRET, AT_T).catch((e: unknown) => e);
      expect(error).toMatchObject({ reason: 'payload_not_raw' });
      const message = (error as Error).message;
      expect(message).toContain("express.raw({ type: 'application/json' })");
      expect(message).toContain("parseAs: 'buffer'");
      expect(message).toContain('await request.text()');
    });

    it.each([undefined, null, 42])('a body that is %s', async (raw) => {
      expect(await reasonOf(verify(raw as unknown as RawBody, `t=${T},v1=${'a'.repeat(64)}`, SECRET, AT_T))).toBe('payload_not_raw');
    });

    it('a correctly signed body that is not JSON, or not an event envelope', async () => {
      for (const text of ['{"event":', '[1,2]', '{"event":7}', 'null', '']) {
        expect(await reasonOf(verify(text, await sign(text, SECRET, { timestamp: T }), SECRET, AT_T))).toBe('invalid_json');
      }
    });

    it('a signed body with a leading BOM, on both paths alike', async () => {
      const text = `\uFEFF${body}`;
      expect(await reasonOf(verify(enc.encode(text), await sign(text, SECRET, { timestamp: T }), SECRET, AT_T))).toBe('invalid_json');
    });

    it('a missing secret as a programming error, not a bad delivery', async () => {
      await expect(verify(body, `t=${T},v1=${'a'.repeat(64)}`, '', AT_T)).rejects.toThrow(TypeError);
      await expect(verify(body, `t=${T},v1=${'a'.repeat(64)}`, [], AT_T)).rejects.toThrow(TypeError);
    });
  });

  describe('against an independent HMAC-SHA256', () => {
    const bytes = enc.encode(realisticBody());

    it('accepts its signature, and rejects one changed byte or a 301 s old timestamp', async () => {
      expect((await verify(bytes, independentSignature(bytes, SECRET, T), SECRET, AT_T)).event_id).toBe(73_421_118);
      const changed = bytes.slice();
      changed[500]! ^= 0x01;
      expect(await reasonOf(verify(changed, independentSignature(bytes, SECRET, T), SECRET, AT_T))).toBe('no_matching_signature');
      expect(await reasonOf(verify(bytes, independentSignature(bytes, SECRET, T - 301), SECRET, AT_T))).toBe('timestamp_out_of_tolerance');
    });

    it('produces the same header as signPayload', async () => {
      expect(await sign(bytes, SECRET, { timestamp: T })).toBe(independentSignature(bytes, SECRET, T));
    });

    it.skipIf(!hasOpenssl())('agrees with openssl dgst -hmac', async () => {
      const input = Buffer.concat([Buffer.from(`${T}.`), bytes]);
      const out = execFileSync('openssl', ['dgst', '-sha256', '-hmac', SECRET], { input }).toString().trim();
      expect(await sign(bytes, SECRET, { timestamp: T })).toBe(`t=${T},v1=${out.slice(out.lastIndexOf(' ') + 1)}`);
    });
  });

  describe('properties', () => {
    const secretArb = fc.string({ minLength: 1, maxLength: 80, unit: 'grapheme' });

    it('any signed event verifies and round-trips', async () => {
      await fc.assert(
        fc.asyncProperty(fc.jsonValue(), fc.nat(), secretArb, async (data, id, secret) => {
          const event = { event: 'order.completed', event_id: id, occurred_at: '2026-01-01T00:00:00Z', workspace_id: 1, data };
          const text = JSON.stringify(event);
          expect(await verify(enc.encode(text), await sign(text, secret, { timestamp: T }), secret, AT_T)).toEqual(JSON.parse(text));
        }),
        { numRuns: 150 },
      );
    });

    it('any signed byte string passes the signature check (only the JSON check may refuse it)', async () => {
      await fc.assert(
        fc.asyncProperty(fc.uint8Array({ maxLength: 512 }), secretArb, async (bytes, secret) => {
          const header = await sign(bytes, secret, { timestamp: T });
          const outcome = await verify(bytes, header, secret, AT_T).then(
            () => 'ok',
            (e: WebhookVerificationError) => e.reason,
          );
          expect(['ok', 'invalid_json']).toContain(outcome);
        }),
        { numRuns: 150 },
      );
    });

    it('any single changed byte fails', async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.uint8Array({ minLength: 1, maxLength: 512 }),
          secretArb,
          fc.nat(),
          fc.integer({ min: 1, max: 255 }),
          async (bytes, secret, at, flip) => {
            const header = await sign(bytes, secret, { timestamp: T });
            const changed = bytes.slice();
            changed[at % bytes.length]! ^= flip;
            expect(await reasonOf(verify(changed, header, secret, AT_T))).toBe('no_matching_signature');
          },
        ),
        { numRuns: 150 },
      );
    });
  });
});

describe('parseSignatureHeader', () => {
  it('keeps t as sent, so the signed string keeps leading zeros', () => {
    expect(parseSignatureHeader(`t=0${T},v1=${'a'.repeat(64)},v1=${'b'.repeat(64)}`)).toEqual({
      t: `0${T}`,
      timestamp: T,
      signatures: ['a'.repeat(64), 'b'.repeat(64)],
    });
  });
});

describe('signing', () => {
  it.each([-1, 1.5, Number.NaN])('refuses the timestamp %s', (timestamp) => {
    expect(() => signPayload('{}', SECRET, { timestamp })).toThrow(TypeError);
  });

  it('signs the current time by default', () => {
    const before = Math.floor(Date.now() / 1000);
    const t = Number(/^t=(\d+),/.exec(signPayload('{}', SECRET))?.[1]);
    const after = Math.floor(Date.now() / 1000);
    expect(t).toBeGreaterThanOrEqual(before);
    expect(t).toBeLessThanOrEqual(after);
  });
});

function hasOpenssl(): boolean {
  try {
    execFileSync('openssl', ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}
