// Copied by gen-card-api from templates/webhooks/secrets.ts. Do not edit: change the template and run the generator.
/**
 * Card-secret entry of the webhook runtime: decrypts the `secrets_jwe` of `card.issued.secrets`
 * (contract section 6.6), computes key fingerprints (D15) and, for the sandbox, encrypts secrets.
 * The only file that imports `jose`; it imports no `node:` module, so it runs on edge runtimes too.
 */
import { CompactEncrypt, compactDecrypt, decodeProtectedHeader, exportJWK, importJWK, importPKCS8, importSPKI, type JWK } from 'jose';
import type { WebCryptoKey } from './types.js';

/** Decrypted card secrets (D22): all strings, leading zeros kept. */
export interface CardSecrets {
  pan: string;
  cvv: string;
  /** Two digits, `"01"` to `"12"`. */
  expiry_month: string;
  /** Four digits. */
  expiry_year: string;
}

/** Card secrets as a producer may hand them over: expiry fields may be numbers (D22). */
export type CardSecretsInput = Omit<CardSecrets, 'expiry_month' | 'expiry_year'> & {
  expiry_month: string | number;
  expiry_year: string | number;
};

/** Why a decryption, an encryption or a fingerprint failed. */
export type CardSecretsErrorReason =
  | 'invalid_jwe'
  | 'unsupported_algorithm'
  | 'missing_key_fingerprint'
  | 'unknown_key_fingerprint'
  | 'invalid_key'
  | 'decryption_failed'
  | 'invalid_payload';

/**
 * Thrown by this module. Messages name fields and reasons only: never the plaintext, never key material.
 */
export class CardSecretsError extends Error {
  override readonly name = 'CardSecretsError';
  /** Machine-readable cause. */
  readonly reason: CardSecretsErrorReason;

  constructor(reason: CardSecretsErrorReason, message: string) {
    super(message);
    this.reason = reason;
  }
}

/** A Node.js `KeyObject` (structural, so that this file needs no `node:crypto`). */
export interface KeyObjectLike {
  readonly type: string;
  export(options: { format: 'jwk' }): unknown;
}

/** A JSON Web Key object. */
export type JwkLike = JWK & { kty: string };

/** A private key: PKCS#8 PEM (or PKCS#1 `RSA PRIVATE KEY` PEM), JWK, `KeyObject` or `CryptoKey`. */
export type PrivateKeyInput = string | JwkLike | KeyObjectLike | WebCryptoKey;

/** A public key: SPKI PEM, PKCS#1 `RSA PUBLIC KEY` PEM, DER SPKI bytes, JWK, `KeyObject` or `CryptoKey`. */
export type PublicKeyInput = string | Uint8Array | JwkLike | KeyObjectLike | WebCryptoKey;

/** One private key, or several keyed by their D15 fingerprint (the event's `key_fingerprint` picks one). */
export type CardSecretsKeys = PrivateKeyInput | Readonly<Record<string, PrivateKeyInput>>;

/** Options of `decryptCardSecrets`. */
export interface DecryptCardSecretsOptions {
  /** The event's `data.key_fingerprint`; required when `keys` is a record. Ignored for a single key. */
  keyFingerprint?: string | null;
  /** Refuse a PAN failing the Luhn check (every issued PAN passes it). Default true. */
  checkLuhn?: boolean;
}

const ALG = 'RSA-OAEP-256';
const ENC = 'A256GCM';
const fail = (reason: CardSecretsErrorReason, message: string) => new CardSecretsError(reason, message);
/** jose's error codes for a JWE that is malformed or asks for what is not supported (`zip`, an algorithm). */
const JWE_FAULTS = new Set<unknown>(['ERR_JWE_INVALID', 'ERR_JOSE_NOT_SUPPORTED', 'ERR_JOSE_ALG_NOT_ALLOWED']);
const tag = (value: unknown) => (value as { [Symbol.toStringTag]?: string })?.[Symbol.toStringTag];
const isKeyObject = (k: unknown): k is KeyObjectLike => tag(k) === 'KeyObject';
const isCryptoKey = (k: unknown): k is WebCryptoKey => tag(k) === 'CryptoKey';
const isJwk = (k: unknown): k is JwkLike => typeof k === 'object' && k !== null && typeof (k as { kty?: unknown }).kty === 'string';

// ---- DER, just enough to build an RSA SubjectPublicKeyInfo or wrap PKCS#1 into PKCS#8 ----

const RSA_ALGORITHM_ID = Uint8Array.of(0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00);

function der(tagByte: number, ...parts: Uint8Array[]): Uint8Array {
  const length = parts.reduce((n, p) => n + p.length, 0);
  const head =
    length < 0x80 ? [length] : length < 0x100 ? [0x81, length] : length < 0x10000 ? [0x82, length >> 8, length & 0xff] : [0x83, length >> 16, (length >> 8) & 0xff, length & 0xff];
  const out = new Uint8Array(1 + head.length + length);
  out[0] = tagByte;
  out.set(head, 1);
  let at = 1 + head.length;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

function derUnsignedInteger(bytes: Uint8Array): Uint8Array {
  let i = 0;
  while (i < bytes.length - 1 && bytes[i] === 0) i++;
  const trimmed = bytes.subarray(i);
  return der(0x02, (trimmed[0] ?? 0) & 0x80 ? Uint8Array.of(0) : new Uint8Array(0), trimmed);
}

const spkiFromPkcs1 = (rsaPublicKey: Uint8Array) => der(0x30, RSA_ALGORITHM_ID, der(0x03, Uint8Array.of(0), rsaPublicKey));
const pkcs8FromPkcs1 = (rsaPrivateKey: Uint8Array) => der(0x30, der(0x02, Uint8Array.of(0)), RSA_ALGORITHM_ID, der(0x04, rsaPrivateKey));

function spkiFromJwk(jwk: { kty?: unknown; n?: unknown; e?: unknown }): Uint8Array {
  if (jwk.kty !== 'RSA' || typeof jwk.n !== 'string' || typeof jwk.e !== 'string') throw fail('invalid_key', 'Expected an RSA key (a JWK with kty "RSA", n and e)');
  return spkiFromPkcs1(der(0x30, derUnsignedInteger(base64Decode(jwk.n)), derUnsignedInteger(base64Decode(jwk.e))));
}

function base64Decode(text: string): Uint8Array {
  const b64 = text.replace(/[\s=]/g, '').replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

function toPem(label: string, bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return `-----BEGIN ${label}-----\n${btoa(bin).replace(/.{64}/g, '$&\n')}\n-----END ${label}-----`;
}

function readPem(pem: string): { label: string; der: Uint8Array } {
  const m = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/.exec(pem);
  if (!m) throw fail('invalid_key', 'Expected a PEM key ("-----BEGIN ... KEY-----")');
  try {
    return { label: m[1]!, der: base64Decode(m[2]!) };
  } catch {
    throw fail('invalid_key', 'The PEM key body is not valid base64');
  }
}

// ---- key import, cached: RSA imports parse big integers and are worth keeping ----

const pemCache = new Map<string, Promise<WebCryptoKey>>();
const objectCache = new WeakMap<object, Promise<WebCryptoKey>>();

function cached<K>(cache: { get(k: K): Promise<WebCryptoKey> | undefined; set(k: K, v: Promise<WebCryptoKey>): unknown; delete(k: K): unknown }, key: K, load: () => Promise<WebCryptoKey>) {
  let hit = cache.get(key);
  if (!hit) {
    hit = load().catch((error: unknown) => {
      cache.delete(key);
      if (error instanceof CardSecretsError) throw error;
      throw fail('invalid_key', 'The RSA key could not be imported for RSA-OAEP-256 (expected PKCS#8/SPKI PEM, JWK, KeyObject or CryptoKey)');
    });
    if (cache instanceof Map && cache.size >= 32) cache.delete(cache.keys().next().value);
    cache.set(key, hit);
  }
  return hit;
}

function importPrivate(key: PrivateKeyInput): Promise<WebCryptoKey | KeyObjectLike> {
  if (isCryptoKey(key) || isKeyObject(key)) return Promise.resolve(key);
  if (isJwk(key)) {
    if (typeof key.d !== 'string') return Promise.reject(fail('invalid_key', 'The JWK has no private part ("d"): pass the private key'));
    return cached(objectCache, key, () => importJWK(key, ALG) as Promise<WebCryptoKey>);
  }
  if (typeof key !== 'string') return Promise.reject(fail('invalid_key', 'Unsupported private key type'));
  return cached(pemCache, key, async () => {
    const { label, der: body } = readPem(key);
    if (label === 'PRIVATE KEY') return importPKCS8(key, ALG, { extractable: true });
    if (label === 'RSA PRIVATE KEY') return importPKCS8(toPem('PRIVATE KEY', pkcs8FromPkcs1(body)), ALG, { extractable: true });
    throw new Error(label);
  });
}

async function importPublic(key: PublicKeyInput): Promise<WebCryptoKey | KeyObjectLike> {
  if (isCryptoKey(key) || isKeyObject(key)) return key;
  const spki = await spkiOf(key);
  return cached(pemCache, toPem('PUBLIC KEY', spki), () => importSPKI(toPem('PUBLIC KEY', spki), ALG));
}

/** DER SubjectPublicKeyInfo of any accepted key; a private key gives its public half. */
async function spkiOf(key: PublicKeyInput | PrivateKeyInput): Promise<Uint8Array> {
  if (key instanceof Uint8Array) return key;
  if (isJwk(key)) return spkiFromJwk(key);
  if (isKeyObject(key)) return spkiFromJwk(key.export({ format: 'jwk' }) as JWK);
  if (isCryptoKey(key)) {
    if (key.type === 'private' && !key.extractable) throw fail('invalid_key', 'A non-extractable private CryptoKey has no readable public half: pass the public key');
    return spkiFromJwk(await exportJWK(key));
  }
  if (typeof key !== 'string') throw fail('invalid_key', 'Unsupported key type');
  const { label, der: body } = readPem(key);
  if (label === 'PUBLIC KEY') return body;
  if (label === 'RSA PUBLIC KEY') return spkiFromPkcs1(body);
  if (label === 'PRIVATE KEY' || label === 'RSA PRIVATE KEY') return spkiFromJwk(await exportJWK((await importPrivate(key)) as WebCryptoKey));
  throw fail('invalid_key', `Unsupported PEM type "${label}"`);
}

/**
 * The D15 fingerprint of an RSA public key: lowercase hex SHA-256 of its DER SubjectPublicKeyInfo, the
 * value the service sends as `key_fingerprint` (`openssl pkey -pubin -outform DER | sha256sum`).
 * Accepts SPKI or PKCS#1 PEM, DER bytes, JWK, KeyObject, CryptoKey; a private key gives its public key's fingerprint.
 *
 * @example
 * const keys = { [await publicKeyFingerprint(privatePem)]: privatePem };
 */
export async function publicKeyFingerprint(publicKey: PublicKeyInput | PrivateKeyInput): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', (await spkiOf(publicKey)) as Uint8Array<ArrayBuffer>));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}

// ---- secrets shape (D22) ----

function luhn(pan: string): boolean {
  let total = 0;
  for (let i = 0; i < pan.length; i++) {
    let d = pan.charCodeAt(pan.length - 1 - i) - 48;
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    total += d;
  }
  return total % 10 === 0;
}

const invalid = (field: string, rule: string) => fail('invalid_payload', `Card secrets field "${field}" ${rule}`);

/**
 * Checks and normalises decrypted card secrets (D22). PAN: 12 to 19 digits passing the Luhn check
 * (unless `checkLuhn` is false); CVV: 3 or 4 digits; month: 1 to 12, returned as two digits; year:
 * four digits. Expiry fields may be numbers; PAN and CVV must be strings (numbers lose leading zeros
 * and, past 15 digits, precision). Error messages never repeat a value.
 */
export function validateCardSecrets(value: unknown, options: { checkLuhn?: boolean } = {}): CardSecrets {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw fail('invalid_payload', 'Card secrets are not a JSON object');
  const v = value as Record<string, unknown>;
  const { pan, cvv } = v;
  if (typeof pan !== 'string' || !/^\d{12,19}$/.test(pan)) throw invalid('pan', 'must be a string of 12 to 19 digits');
  if (options.checkLuhn !== false && !luhn(pan)) throw invalid('pan', 'fails the Luhn check');
  if (typeof cvv !== 'string' || !/^\d{3,4}$/.test(cvv)) throw invalid('cvv', 'must be a string of 3 or 4 digits');
  const month = typeof v.expiry_month === 'number' && Number.isInteger(v.expiry_month) ? String(v.expiry_month) : v.expiry_month;
  if (typeof month !== 'string' || !/^\d{1,2}$/.test(month) || +month < 1 || +month > 12) throw invalid('expiry_month', 'must be a month from 01 to 12');
  const year = typeof v.expiry_year === 'number' && Number.isInteger(v.expiry_year) ? String(v.expiry_year) : v.expiry_year;
  if (typeof year !== 'string' || !/^\d{4}$/.test(year)) throw invalid('expiry_year', 'must be a four-digit year');
  return { pan, cvv, expiry_month: month.padStart(2, '0'), expiry_year: year };
}

// ---- decrypt / encrypt ----

function pickKey(keys: CardSecretsKeys, fingerprint: string | null | undefined): PrivateKeyInput {
  if (typeof keys === 'string' || isJwk(keys) || isKeyObject(keys) || isCryptoKey(keys)) return keys;
  if (typeof keys !== 'object' || keys === null) throw fail('invalid_key', 'Pass a private key, or a record of private keys keyed by fingerprint');
  if (!fingerprint) throw fail('missing_key_fingerprint', 'Several keys were given: pass the event\'s data.key_fingerprint as keyFingerprint');
  const wanted = fingerprint.trim().toLowerCase();
  for (const [fp, key] of Object.entries(keys)) if (fp.trim().toLowerCase() === wanted) return key;
  throw fail(
    'unknown_key_fingerprint',
    `No private key for key_fingerprint ${wanted}; known: ${Object.keys(keys).join(', ') || 'none'}. Was the uploaded public key rotated?`,
  );
}

/**
 * Decrypts `data.secrets_jwe` of a `card.issued.secrets` event: compact JWE, RSA-OAEP-256 key
 * encryption and A256GCM content encryption only (anything else is refused before any key is used),
 * then checks the four fields (see `validateCardSecrets`).
 *
 * @param keys one private key, or a record keyed by fingerprint (see `publicKeyFingerprint`) during key rotation.
 * @throws {CardSecretsError} never with the plaintext or the key in its message.
 * @example
 * webhooks.on('card.issued.secrets', async (e) => {
 *   const secrets = await decryptCardSecrets(e.data.secrets_jwe, { [fp]: process.env.CARD_KEY_PEM! },
 *     { keyFingerprint: e.data.key_fingerprint });
 *   await vault.store(e.data.card_uuid, secrets);
 * });
 */
export async function decryptCardSecrets(secretsJwe: string, keys: CardSecretsKeys, options: DecryptCardSecretsOptions = {}): Promise<CardSecrets> {
  if (typeof secretsJwe !== 'string' || secretsJwe.split('.').length !== 5) throw fail('invalid_jwe', 'secrets_jwe is not a compact JWE (five dot-separated parts)');
  let header;
  try {
    header = decodeProtectedHeader(secretsJwe);
  } catch {
    throw fail('invalid_jwe', 'secrets_jwe has an unreadable protected header');
  }
  if (header.alg !== ALG || header.enc !== ENC) {
    throw fail('unsupported_algorithm', `secrets_jwe uses alg ${String(header.alg)} / enc ${String(header.enc)}; only ${ALG} / ${ENC} are accepted`);
  }
  // RFC 7516 4.1.13 takes `crit` from RFC 7515 4.1.11: a JWE that lists extensions the recipient does not understand
  // is invalid. This receiver understands none (RSA-OAEP-256 with A256GCM needs none), so any `crit` makes the JWE
  // invalid, whatever the key: checked before the key is picked, so that the cause is the JWE's, not the key's.
  if (header.crit !== undefined) {
    throw fail('invalid_jwe', `secrets_jwe is invalid: its protected header lists critical extensions ("crit") this receiver does not understand (RFC 7515 section 4.1.11)`);
  }
  const key = await importPrivate(pickKey(keys, options.keyFingerprint));
  let plaintext: Uint8Array;
  try {
    ({ plaintext } = await compactDecrypt(secretsJwe, key, { keyManagementAlgorithms: [ALG], contentEncryptionAlgorithms: [ENC] }));
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'ERR_JWE_DECRYPTION_FAILED') {
      throw fail('decryption_failed', 'secrets_jwe could not be decrypted: wrong private key, or the JWE was altered');
    }
    // What jose says of the JWE itself (its structure, a header it does not support) is the JWE's fault; anything
    // else it throws here (a TypeError on the key's type or size) is the key's.
    throw fail(JWE_FAULTS.has(code) ? 'invalid_jwe' : 'invalid_key', `secrets_jwe could not be decrypted (${typeof code === 'string' ? code : 'key error'})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder().decode(plaintext));
  } catch {
    // The JSON error text would quote the plaintext.
    throw fail('invalid_payload', 'Decrypted card secrets are not JSON');
  }
  return validateCardSecrets(parsed, options);
}

/**
 * Encrypts card secrets for a workspace's public key the way the service does (compact JWE,
 * RSA-OAEP-256 + A256GCM); used by the sandbox to emit `card.issued.secrets`. The secrets are
 * checked and normalised first, so that what is encrypted is what `decryptCardSecrets` returns.
 *
 * @example
 * const secrets_jwe = await encryptCardSecrets({ pan, cvv, expiry_month: 7, expiry_year: 2029 }, workspacePublicPem);
 * const key_fingerprint = await publicKeyFingerprint(workspacePublicPem);
 */
export async function encryptCardSecrets(secrets: CardSecretsInput, publicKey: PublicKeyInput, options: { checkLuhn?: boolean } = {}): Promise<string> {
  const normalized = validateCardSecrets(secrets, options);
  const key = await importPublic(publicKey);
  return new CompactEncrypt(new TextEncoder().encode(JSON.stringify(normalized))).setProtectedHeader({ alg: ALG, enc: ENC }).encrypt(key);
}
