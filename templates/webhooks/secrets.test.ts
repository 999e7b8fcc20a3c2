import { createCipheriv, createHash, generateKeyPairSync, publicEncrypt, randomBytes, constants, webcrypto, type KeyObject } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CardSecretsError, decryptCardSecrets, encryptCardSecrets, publicKeyFingerprint, validateCardSecrets, type CardSecretsErrorReason } from './secrets.js';

const pair = generateKeyPairSync('rsa', { modulusLength: 2048 });
const other = generateKeyPairSync('rsa', { modulusLength: 2048 });
const SECRETS = { pan: '4111111111111111', cvv: '042', expiry_month: '07', expiry_year: '2029' };
const spkiPem = pair.publicKey.export({ type: 'spki', format: 'pem' }) as string;
const pkcs8Pem = pair.privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
const expectedFingerprint = createHash('sha256').update(pair.publicKey.export({ type: 'spki', format: 'der' })).digest('hex');
const b64url = (b: Buffer | string) => Buffer.from(b).toString('base64url');

/** A compact JWE built with node:crypto alone, following RFC 7516 by hand: another implementation than jose. */
function handMadeJwe(plaintext: string, publicKey: KeyObject = pair.publicKey, header: object = { alg: 'RSA-OAEP-256', enc: 'A256GCM' }): string {
  const protectedHeader = b64url(JSON.stringify(header));
  const cek = randomBytes(32);
  const encryptedKey = publicEncrypt({ key: publicKey, padding: constants.RSA_PKCS1_OAEP_PADDING, oaepHash: 'sha256' }, cek);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', cek, iv);
  cipher.setAAD(Buffer.from(protectedHeader, 'ascii'));
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return [protectedHeader, b64url(encryptedKey), b64url(iv), b64url(ciphertext), b64url(cipher.getAuthTag())].join('.');
}

async function failure(p: Promise<unknown>, ...mustNotContain: string[]): Promise<CardSecretsErrorReason> {
  const error = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(CardSecretsError);
  const { message } = error as CardSecretsError;
  for (const s of [...mustNotContain, SECRETS.pan, pkcs8Pem.split('\n')[1]!]) expect(message).not.toContain(s);
  return (error as CardSecretsError).reason;
}

const privateForms: [string, () => Promise<unknown> | unknown][] = [
  ['PKCS#8 PEM', () => pkcs8Pem],
  ['PKCS#1 PEM', () => pair.privateKey.export({ type: 'pkcs1', format: 'pem' })],
  ['JWK', () => pair.privateKey.export({ format: 'jwk' })],
  ['KeyObject', () => pair.privateKey],
  ['CryptoKey', () => webcrypto.subtle.importKey('pkcs8', pair.privateKey.export({ type: 'pkcs8', format: 'der' }), { name: 'RSA-OAEP', hash: 'SHA-256' }, false, ['decrypt'])],
];

const publicForms: [string, () => Promise<unknown> | unknown][] = [
  ['SPKI PEM', () => spkiPem],
  ['PKCS#1 PEM', () => pair.publicKey.export({ type: 'pkcs1', format: 'pem' })],
  ['DER bytes', () => new Uint8Array(pair.publicKey.export({ type: 'spki', format: 'der' }))],
  ['JWK', () => pair.publicKey.export({ format: 'jwk' })],
  ['KeyObject', () => pair.publicKey],
  ['CryptoKey', () => webcrypto.subtle.importKey('spki', pair.publicKey.export({ type: 'spki', format: 'der' }), { name: 'RSA-OAEP', hash: 'SHA-256' }, true, ['encrypt'])],
];

describe('decryptCardSecrets', () => {
  it.each(privateForms)('round-trips through encryptCardSecrets with a %s private key', async (_, make) => {
    const jwe = await encryptCardSecrets({ ...SECRETS, expiry_month: 7, expiry_year: 2029 }, spkiPem);
    expect(await decryptCardSecrets(jwe, (await make()) as string)).toEqual(SECRETS);
  });

  it.each(publicForms)('encrypts for a %s public key', async (_, make) => {
    const jwe = await encryptCardSecrets(SECRETS, (await make()) as string);
    expect(JSON.parse(Buffer.from(jwe.split('.')[0]!, 'base64url').toString())).toEqual({ alg: 'RSA-OAEP-256', enc: 'A256GCM' });
    expect(await decryptCardSecrets(jwe, pair.privateKey)).toEqual(SECRETS);
  });

  it('decrypts a JWE built by another implementation (node:crypto by hand), normalising numeric expiry', async () => {
    const jwe = handMadeJwe(JSON.stringify({ pan: '5555555555554444', cvv: '1234', expiry_month: 3, expiry_year: 2031 }));
    expect(await decryptCardSecrets(jwe, pkcs8Pem)).toEqual({ pan: '5555555555554444', cvv: '1234', expiry_month: '03', expiry_year: '2031' });
  });

  it('picks the key by fingerprint from a record, case-insensitively', async () => {
    const keys = { [await publicKeyFingerprint(other.publicKey)]: other.privateKey, [expectedFingerprint.toUpperCase()]: pkcs8Pem };
    const jwe = handMadeJwe(JSON.stringify(SECRETS));
    expect(await decryptCardSecrets(jwe, keys, { keyFingerprint: expectedFingerprint })).toEqual(SECRETS);
    expect(await failure(decryptCardSecrets(jwe, keys))).toBe('missing_key_fingerprint');
    const unknown = await decryptCardSecrets(jwe, keys, { keyFingerprint: 'ab'.repeat(32) }).catch((e: Error) => e);
    expect(unknown).toMatchObject({ reason: 'unknown_key_fingerprint' });
    expect((unknown as Error).message).toContain('ab'.repeat(32));
  });

  it('fails on a tampered JWE without leaking the plaintext', async () => {
    const jwe = handMadeJwe(JSON.stringify(SECRETS));
    const parts = jwe.split('.');
    for (const index of [1, 2, 3, 4]) {
      const bytes = Buffer.from(parts[index]!, 'base64url');
      bytes[0]! ^= 0x01;
      const tampered = parts.map((p, i) => (i === index ? b64url(bytes) : p)).join('.');
      expect(await failure(decryptCardSecrets(tampered, pkcs8Pem), SECRETS.cvv)).toMatch(/decryption_failed|invalid_jwe/);
    }
    // The protected header is the AAD: changing a byte of it (keeping the algorithms) breaks the tag.
    const header = b64url(JSON.stringify({ enc: 'A256GCM', alg: 'RSA-OAEP-256' }));
    expect(await failure(decryptCardSecrets([header, ...parts.slice(1)].join('.'), pkcs8Pem))).toBe('decryption_failed');
  });

  it('fails with the wrong private key', async () => {
    expect(await failure(decryptCardSecrets(handMadeJwe(JSON.stringify(SECRETS)), other.privateKey))).toBe('decryption_failed');
  });

  it.each([
    [{ alg: 'RSA-OAEP', enc: 'A256GCM' }],
    [{ alg: 'RSA1_5', enc: 'A256GCM' }],
    [{ alg: 'RSA-OAEP-256', enc: 'A128GCM' }],
    [{ alg: 'dir', enc: 'A256GCM' }],
  ])('refuses %j before using the key', async (header) => {
    expect(await failure(decryptCardSecrets(handMadeJwe(JSON.stringify(SECRETS), pair.publicKey, header), pkcs8Pem))).toBe('unsupported_algorithm');
  });

  it.each([['not a jwe'], ['a.b.c.d'], ['!!!.b.c.d.e'], [42]])('refuses %j as a JWE', async (jwe) => {
    expect(await failure(decryptCardSecrets(jwe as string, pkcs8Pem))).toBe('invalid_jwe');
  });

  // Issue 31: a `crit` header failed as invalid_key. RFC 7515 4.1.11 (which RFC 7516 4.1.13 takes): a JWE listing an
  // extension the recipient does not understand is invalid; this receiver understands none.
  it.each([
    ['an unknown extension, present', { alg: 'RSA-OAEP-256', enc: 'A256GCM', crit: ['x-ext'], 'x-ext': 1 }],
    ['an unknown extension, absent', { alg: 'RSA-OAEP-256', enc: 'A256GCM', crit: ['x-ext'] }],
    ['a registered name', { alg: 'RSA-OAEP-256', enc: 'A256GCM', crit: ['b64'], b64: false }],
    ['an empty list', { alg: 'RSA-OAEP-256', enc: 'A256GCM', crit: [] }],
    ['not a list', { alg: 'RSA-OAEP-256', enc: 'A256GCM', crit: 'x-ext' }],
  ])('refuses a JWE whose crit lists %s as invalid_jwe, with the right key or another', async (_name, header) => {
    for (const key of [pkcs8Pem, other.privateKey]) expect(await failure(decryptCardSecrets(handMadeJwe(JSON.stringify(SECRETS), pair.publicKey, header), key as string))).toBe('invalid_jwe');
  });

  it('refuses a compressed JWE ("zip", which jose does not support) as invalid_jwe, not as a key problem', async () => {
    expect(await failure(decryptCardSecrets(handMadeJwe(JSON.stringify(SECRETS), pair.publicKey, { alg: 'RSA-OAEP-256', enc: 'A256GCM', zip: 'DEF' }), pkcs8Pem))).toBe('invalid_jwe');
  });

  it('reports plaintext that is not JSON or not card secrets without quoting it', async () => {
    expect(await failure(decryptCardSecrets(handMadeJwe('pan=4111111111111111'), pkcs8Pem))).toBe('invalid_payload');
    expect(await failure(decryptCardSecrets(handMadeJwe(JSON.stringify({ ...SECRETS, pan: '4111111111111112' })), pkcs8Pem), '4111111111111112')).toBe(
      'invalid_payload',
    );
  });

  it.each([
    ['a PEM that is not one', '-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----'],
    ['plain text', 'hello'],
    ['an encrypted PEM', '-----BEGIN ENCRYPTED PRIVATE KEY-----\nAAAA\n-----END ENCRYPTED PRIVATE KEY-----'],
    ['a public JWK', pair.publicKey.export({ format: 'jwk' })],
  ])('refuses %s as a private key', async (_, key) => {
    expect(await failure(decryptCardSecrets(handMadeJwe(JSON.stringify(SECRETS)), key as string))).toBe('invalid_key');
  });
});

describe('publicKeyFingerprint (D15)', () => {
  it.each([...publicForms, ...privateForms.filter(([name]) => name !== 'CryptoKey')])('equals sha256 of the DER SPKI for a %s', async (_, make) => {
    expect(await publicKeyFingerprint((await make()) as string)).toBe(expectedFingerprint);
  });

  it('does not depend on PEM line endings or surrounding text', async () => {
    expect(await publicKeyFingerprint(`uploaded key:\r\n${spkiPem.replace(/\n/g, '\r\n')}`)).toBe(expectedFingerprint);
  });

  it('refuses a non-RSA key', async () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    expect(await failure(publicKeyFingerprint(ec.publicKey))).toBe('invalid_key');
  });
});

describe('validateCardSecrets (D22)', () => {
  it.each([
    [{ expiry_month: 7, expiry_year: 2029 }, { expiry_month: '07', expiry_year: '2029' }],
    [{ expiry_month: '7' }, { expiry_month: '07' }],
    [{ expiry_month: '12' }, { expiry_month: '12' }],
    [{ pan: '378282246310005', cvv: '1234' }, { pan: '378282246310005', cvv: '1234' }],
  ])('accepts %j', (over, want) => {
    expect(validateCardSecrets({ ...SECRETS, ...over })).toEqual({ ...SECRETS, ...want });
  });

  it.each([
    ['a short PAN', { pan: '41111111111' }],
    ['a 20-digit PAN', { pan: '41111111111111111111' }],
    ['a PAN with spaces', { pan: '4111 1111 1111 1111' }],
    ['a numeric PAN', { pan: 4111111111111111 }],
    ['a PAN failing Luhn', { pan: '4111111111111112' }],
    ['a 2-digit CVV', { cvv: '12' }],
    ['a numeric CVV', { cvv: 123 }],
    ['month 0', { expiry_month: '00' }],
    ['month 13', { expiry_month: 13 }],
    ['a two-digit year', { expiry_year: '29' }],
    ['a fractional year', { expiry_year: 2029.5 }],
    ['a missing field', { cvv: undefined }],
  ])('refuses %s', (_, over) => {
    expect(() => validateCardSecrets({ ...SECRETS, ...over })).toThrow(CardSecretsError);
  });

  it('skips Luhn on request, and refuses non-objects', () => {
    expect(validateCardSecrets({ ...SECRETS, pan: '4111111111111112' }, { checkLuhn: false }).pan).toBe('4111111111111112');
    expect(() => validateCardSecrets([1])).toThrow(CardSecretsError);
    expect(() => validateCardSecrets(null)).toThrow(CardSecretsError);
  });
});
