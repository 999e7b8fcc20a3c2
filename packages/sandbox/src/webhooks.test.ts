import { createHash, createPublicKey, generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { decryptCardSecrets, publicKeyFingerprint } from '@card-api/webhooks/secrets';
import { createManualClock } from './clock.js';
import { createSandbox, type Sandbox } from './sandbox.js';
import { catchError, issueActiveCard, issueBody, setup, tableNames } from './test-support.js';
import { startReceiver, type TestReceiver } from './test-receiver.js';

const receivers: TestReceiver[] = [];
const sandboxes: Sandbox[] = [];
afterEach(async () => {
  for (const s of sandboxes.splice(0)) s.close();
  await Promise.all(receivers.splice(0).map((r) => r.stop()));
});

async function fixture(options: Parameters<typeof setup>[0] = {}) {
  const f = setup(options);
  sandboxes.push(f.sandbox);
  const receiver = await startReceiver(() => f.clock.now());
  receivers.push(receiver);
  return { ...f, receiver };
}

function register(sandbox: Sandbox, ws: number, receiver: TestReceiver, events?: string[] | '*') {
  const endpoint = sandbox.webhooks.registerEndpoint(ws, { url: receiver.url, events });
  receiver.secret = endpoint.secret;
  return endpoint;
}

const luhn = (pan: string): boolean => [...pan].reverse().map(Number).reduce((sum, d, i) => sum + (i % 2 === 1 ? (d * 2 > 9 ? d * 2 - 9 : d * 2) : d), 0) % 10 === 0;

describe('webhook endpoints', () => {
  it('returns the signing secret once and lists endpoints without it', () => {
    const { sandbox, ws } = setup();
    const created = sandbox.webhooks.registerEndpoint(ws, { url: 'https://example.test/hooks', events: ['order.completed', 'card.transaction.*'] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(created).toMatchObject({ status: 'active', events: ['card.transaction.*', 'order.completed'], disabled_reason: null });
    const listed = sandbox.webhooks.listEndpoints(ws);
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(created.secret);
    expect(sandbox.webhooks.disableEndpoint(ws, created.id)).toMatchObject({ status: 'disabled', disabled_reason: 'manual' });
  });

  it.each([
    ['a relative URL', { url: '/hooks' }, 'url'],
    ['an ftp URL', { url: 'ftp://example.test/' }, 'url'],
    ['an unknown event', { url: 'https://example.test/', events: ['card.issued'] }, 'events.0'],
    ['an empty list', { url: 'https://example.test/', events: [] }, 'events'],
  ])('refuses %s', (_name, input, field) => {
    const { sandbox, ws } = setup();
    const error = catchError(() => sandbox.webhooks.registerEndpoint(ws, input));
    expect(error).toMatchObject({ status: 422, code: 'validation.failed' });
    expect(Object.keys(error.fieldErrors ?? {})).toContain(field);
  });

  it('answers 404 for an endpoint of another workspace', () => {
    const { sandbox, ws } = setup();
    const other = sandbox.admin.createWorkspace({ name: 'Other' }).id;
    const created = sandbox.webhooks.registerEndpoint(ws, { url: 'https://example.test/' });
    expect(catchError(() => sandbox.webhooks.disableEndpoint(other, created.id))).toMatchObject({ status: 404 });
  });

  it('stores the D15 fingerprint of an RSA public key and refuses private, small and non-RSA keys', async () => {
    const { sandbox, ws } = setup();
    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const spki = publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const pkcs1 = publicKey.export({ type: 'pkcs1', format: 'pem' }).toString();
    const expected = createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex');
    expect(sandbox.webhooks.setPublicKey(ws, spki).key_fingerprint).toBe(expected);
    expect(await publicKeyFingerprint(spki)).toBe(expected);
    // The same key in PKCS#1 form has the same fingerprint (D15 hashes the SPKI DER).
    expect(sandbox.webhooks.setPublicKey(ws, pkcs1.replace(/\n/g, '\r\n')).key_fingerprint).toBe(expected);
    const small = generateKeyPairSync('rsa', { modulusLength: 1024 }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    for (const bad of [privatePem, small, ec, 'not a key']) {
      const error = catchError(() => sandbox.webhooks.setPublicKey(ws, bad));
      expect(error).toMatchObject({ status: 422, code: 'validation.failed' });
      // A refused private key is neither stored nor echoed.
      expect(error.message).not.toContain('MII');
    }
    expect(sandbox.webhooks.getPublicKey(ws)?.key_fingerprint).toBe(expected);
    expect(createPublicKey(sandbox.webhooks.getPublicKey(ws)!.public_key_pem).export({ type: 'spki', format: 'pem' })).toBe(spki);
  });
});

describe('webhook delivery to a real receiver', () => {
  it('retries a failing receiver on the D19 schedule with the same bytes and fresh signatures', async () => {
    const { sandbox, ws, receiver } = await fixture();
    register(sandbox, ws, receiver, ['order.completed']);
    receiver.respond = (n) => (n <= 2 ? 500 : 204);
    issueActiveCard(sandbox, ws);

    const first = await sandbox.deliveries.runDue();
    expect(first).toMatchObject({ attempts: 1, failed: 1 });
    expect(sandbox.deliveries.list()[0]).toMatchObject({ status: 'pending', attempts: 1, last_status: 500, last_error: 'HTTP 500' });
    await sandbox.advanceAsync(9_999);
    expect(receiver.received).toHaveLength(1);
    await sandbox.advanceAsync(1);
    expect(receiver.received).toHaveLength(2);
    await sandbox.advanceAsync(30_000);
    expect(receiver.received).toHaveLength(3);
    await sandbox.advanceAsync(24 * 3_600_000);
    expect(receiver.received).toHaveLength(3);

    const [a, b, c] = receiver.received as [(typeof receiver.received)[0], (typeof receiver.received)[0], (typeof receiver.received)[0]];
    expect(new Set(receiver.received.map((r) => r.event.event_id)).size).toBe(1);
    expect(b.body.equals(a.body) && c.body.equals(a.body)).toBe(true);
    expect([b.t - a.t, c.t - b.t]).toEqual([10, 30]);
    expect(new Set(receiver.received.map((r) => r.signature)).size).toBe(3);
    expect(receiver.received.every((r) => r.contentType === 'application/json')).toBe(true);
    const delivery = sandbox.deliveries.list()[0]!;
    expect(delivery).toMatchObject({ status: 'succeeded', attempts: 3, last_status: 204, last_error: null, next_attempt_at: null });
    expect(Buffer.from(delivery.body).equals(a.body)).toBe(true);
    expect(JSON.parse(delivery.body)).toEqual(sandbox.events.since(0).find((e) => e.event === 'order.completed'));
    expect(receiver.problems).toEqual([]);
  });

  it('delivers everything a receiver missed while it was down, once it is back', async () => {
    const { sandbox, ws, receiver } = await fixture();
    register(sandbox, ws, receiver, '*');
    await receiver.stop();
    const card = issueActiveCard(sandbox, ws);
    sandbox.cards.topup(ws, card, { amount: '10.00' });
    sandbox.cards.freeze(ws, card, { reason: 'travel' });
    await sandbox.advanceAsync(15 * 60_000);
    const waiting = sandbox.deliveries.list();
    expect(waiting.length).toBeGreaterThanOrEqual(4);
    for (const d of waiting) {
      expect(d).toMatchObject({ status: 'pending', last_status: null });
      expect(d.attempts).toBeGreaterThanOrEqual(3);
      expect(d.last_error).toMatch(/ECONNREFUSED/);
    }
    expect(receiver.received).toHaveLength(0);

    await receiver.start();
    await sandbox.advanceAsync(3_600_000);
    // Every sandbox event carries its event_id, card.issued.secrets included (the spec makes it optional there, D13).
    const ids = receiver.received.map((r) => r.event.event_id!).sort((x, y) => x - y);
    expect(ids).toEqual(sandbox.events.since(0).map((e) => e.event_id));
    expect(sandbox.deliveries.list().every((d) => d.status === 'succeeded')).toBe(true);
    for (const r of receiver.received) expect(r.body.toString()).toBe(sandbox.deliveries.list({ eventId: r.event.event_id })[0]!.body);
    expect(receiver.problems).toEqual([]);
  });

  it('only sends the codes an endpoint subscribes to, and nothing recorded before it existed', async () => {
    const { sandbox, ws, receiver } = await fixture();
    const card = issueActiveCard(sandbox, ws);
    register(sandbox, ws, receiver, ['card.*']);
    sandbox.cards.freeze(ws, card);
    sandbox.advance(1000);
    await sandbox.deliveries.runDue();
    expect(receiver.received.map((r) => r.event.event)).toEqual(['card.frozen']);
  });

  it('disables the endpoint after 8 failed attempts of one delivery and cancels what waits', async () => {
    const { sandbox, ws, receiver } = await fixture({ webhookRetryScheduleMs: [1_000] });
    const endpoint = register(sandbox, ws, receiver, ['order.completed', 'card.frozen']);
    receiver.respond = () => 503;
    const card = issueActiveCard(sandbox, ws);
    await sandbox.advanceAsync(3_500); // attempts at +0, +1 s, +2 s, +3 s of the first delivery
    sandbox.cards.freeze(ws, card);
    sandbox.advance(1000);
    await sandbox.advanceAsync(4_000);
    const [first, ...rest] = sandbox.deliveries.list();
    expect(first).toMatchObject({ status: 'failed', attempts: 8, last_status: 503 });
    expect(rest.length).toBe(2);
    for (const d of rest) expect(d.status).toBe('cancelled');
    expect(sandbox.webhooks.listEndpoints(ws)[0]).toMatchObject({ id: endpoint.id, status: 'disabled', disabled_reason: 'failing' });
    const sent = receiver.received.length;
    expect(receiver.received.filter((r) => r.event.event_id === first!.event_id)).toHaveLength(8);

    // Nothing more is queued or sent to a disabled endpoint.
    sandbox.cards.unfreeze(ws, card);
    await sandbox.advanceAsync(60_000);
    expect(sandbox.deliveries.list()).toHaveLength(3);
    expect(receiver.received).toHaveLength(sent);
    await expect(sandbox.deliveries.deliverNow(first!.id)).rejects.toMatchObject({ status: 409 });
  });

  it('counts a receiver that does not answer in time as a failure', async () => {
    const { sandbox, ws, receiver } = await fixture({ webhookTimeoutMs: 2_000 });
    register(sandbox, ws, receiver, ['order.completed']);
    receiver.respond = (n) => (n === 1 ? 'hang' : 200);
    issueActiveCard(sandbox, ws);
    await sandbox.deliveries.runDue();
    expect(sandbox.deliveries.list()[0]).toMatchObject({ status: 'pending', attempts: 1, last_status: null, last_error: 'timed out after 2000 ms' });
    const delivered = await sandbox.deliveries.deliverNow(sandbox.deliveries.list()[0]!.id);
    expect(delivered).toMatchObject({ status: 'succeeded', attempts: 2 });
  });

  it('sends on its own with autoRun, never inside the write that records the event', async () => {
    const clock = createManualClock(new Date());
    const sandbox = createSandbox({ clock, autoRun: true, orderLatencyMs: 0 });
    sandboxes.push(sandbox);
    const receiver = await startReceiver(() => clock.now());
    receivers.push(receiver);
    const { workspace } = sandbox.seedDefaultWorkspace();
    register(sandbox, workspace.id, receiver, ['order.completed']);
    const got = new Promise<void>((resolve) => {
      receiver.respond = () => (resolve(), 200);
    });
    sandbox.cards.create(workspace.id, issueBody());
    expect(receiver.received).toHaveLength(0);
    await got;
    await expect.poll(() => sandbox.deliveries.list()[0]?.status).toBe('succeeded');
  });
});

describe('restart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sandbox-hooks-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('resumes due deliveries, including an attempt cut off by the shutdown', async () => {
    const file = join(dir, 'hooks.db');
    const clock = createManualClock('2026-03-01T12:00:00.000Z');
    const receiver = await startReceiver(() => clock.now());
    receivers.push(receiver);
    const before = createSandbox({ db: file, clock, orderLatencyMs: 50 });
    const ws = before.seedDefaultWorkspace().workspace.id;
    register(before, ws, receiver, '*');
    receiver.respond = (n) => (n === 1 ? 500 : n === 2 ? 'hang' : 204);
    const card = issueActiveCard(before, ws);
    await before.deliveries.runDue(); // order.completed: 500, retry due in 10 s
    before.cards.freeze(ws, card, { reason: 'x' });
    before.advance(200);
    clock.advance(10_000);
    const cut = before.deliveries.runDue(); // the first of these attempts hangs
    await expect.poll(() => receiver.received.length).toBeGreaterThanOrEqual(2);
    const statuses = before.deliveries.list().map((d) => d.status);
    expect(statuses).toContain('sending');
    before.close();
    await cut;

    const after = createSandbox({ db: file, clock, orderLatencyMs: 50 });
    sandboxes.push(after);
    expect(after.deliveries.list().map((d) => d.status)).not.toContain('sending');
    await after.deliveries.runDue();
    const delivered = after.deliveries.list();
    expect(delivered.map((d) => d.status)).toEqual(delivered.map(() => 'succeeded'));
    const eventIds = after.events.since(0).map((e) => e.event_id);
    expect(new Set(receiver.received.map((r) => r.event.event_id))).toEqual(new Set(eventIds));
    expect(receiver.problems).toEqual([]);
  });
});

describe('card.issued.secrets', () => {
  const keys = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicPem = keys.publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const privatePem = keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

  it('carries a JWE that decrypts to the card secrets, which appear nowhere else', async () => {
    const errors: unknown[] = [];
    const { sandbox, ws, receiver, token } = await fixture({ onError: (e) => errors.push(e) });
    const fingerprint = sandbox.webhooks.setPublicKey(ws, publicPem).key_fingerprint;
    register(sandbox, ws, receiver, ['card.issued.secrets', 'order.completed']);
    const outputs: unknown[] = [];
    sandbox.events.onEvent((e) => outputs.push(e));
    const cards = [issueActiveCard(sandbox, ws), issueActiveCard(sandbox, ws, { card_product_id: 2, initial_topup_amount: '50.00' })];
    // Held only until the event is encrypted: read them now, to compare with what the receiver decrypts.
    const held = new Map(cards.map((card) => [card, sandbox.secrets.forCard(card)]));
    const run = await sandbox.deliveries.runDue();
    expect(run.secretsEvents).toBe(2);
    for (const card of cards) expect(catchError(() => sandbox.secrets.forCard(card))).toMatchObject({ status: 404 });
    expect(sandbox.db.prepare('SELECT COUNT(*) AS n FROM card_secrets').get()).toEqual({ n: 0 });

    const secretsEvents = receiver.received.filter((r) => r.event.event === 'card.issued.secrets');
    expect(secretsEvents).toHaveLength(2);
    // Each follows its order.completed.
    for (const card of cards) {
      const ids = sandbox.events.since(0).filter((e) => e.data.card_uuid === card).map((e) => e.event);
      expect(ids).toEqual(['order.completed', 'card.issued.secrets']);
    }
    for (const received of secretsEvents) {
      const data = received.event.data as { card_uuid: string; card_id: number; card_last4: string; card_bin: string; secrets_jwe: string; key_fingerprint: string };
      expect(data.key_fingerprint).toBe(fingerprint);
      expect(data.key_fingerprint).toBe(await publicKeyFingerprint(privatePem));
      const decrypted = await decryptCardSecrets(data.secrets_jwe, { [fingerprint]: privatePem }, { keyFingerprint: data.key_fingerprint });
      expect(decrypted).toEqual(held.get(data.card_uuid));
      expect(luhn(decrypted.pan)).toBe(true);
      expect(decrypted.expiry_month).toMatch(/^(0[1-9]|1[0-2])$/);
      const card = sandbox.cards.get(ws, data.card_uuid);
      expect(data).toMatchObject({ card_last4: card.pan_last4, card_bin: card.pan_bin });
      expect(decrypted.pan.endsWith(card.pan_last4) && decrypted.pan.startsWith(card.pan_bin)).toBe(true);
      expect(typeof data.card_id).toBe('number');
    }

    // Everything the services return, every queued event, and every stored row but card_secrets.
    for (const card of cards) {
      outputs.push(sandbox.cards.get(ws, card), sandbox.cards.listTransactions(ws, card), sandbox.cards.listConsumptionBills(ws, card));
    }
    outputs.push(
      sandbox.cards.list(ws),
      sandbox.orders.list(ws),
      sandbox.wallet.get(ws),
      sandbox.ledger.list(ws, { per_page: 100 }),
      sandbox.events.since(0),
      sandbox.deliveries.list(),
      sandbox.webhooks.listEndpoints(ws),
      sandbox.webhooks.getPublicKey(ws),
      sandbox.auth.authenticate(token, '127.0.0.1'),
      errors.map(String),
      receiver.received.map((r) => r.body.toString()),
    );
    const tables = tableNames(sandbox.db).filter((name) => name !== 'card_secrets');
    expect(tables).toContain('webhook_deliveries');
    for (const table of tables) outputs.push(sandbox.db.prepare(`SELECT * FROM "${table}"`).all());
    const everything = JSON.stringify(outputs);
    expect(everything).not.toMatch(/"(pan|cvv|expiry_month|expiry_year)"/);
    for (const card of cards) {
      const secrets = held.get(card)!;
      expect(everything).not.toContain(secrets.pan);
      // The hidden middle digits as a run of their own; inside a hex uuid, token or JWE they are chance, not a leak.
      expect(everything).not.toMatch(new RegExp(`(?<![0-9a-f])${secrets.pan.slice(6, 12)}(?![0-9a-f])`, 'i'));
      expect(everything).not.toContain(`"${secrets.cvv}"`);
    }
    expect(errors).toEqual([]);
    expect(receiver.problems).toEqual([]);
  });

  it('is not emitted without a public key or without a subscribed endpoint', async () => {
    const { sandbox, ws, receiver } = await fixture();
    register(sandbox, ws, receiver, ['card.issued.secrets']);
    issueActiveCard(sandbox, ws);
    await sandbox.deliveries.runDue();
    sandbox.webhooks.setPublicKey(ws, publicPem);
    sandbox.webhooks.disableEndpoint(ws, sandbox.webhooks.listEndpoints(ws)[0]!.id);
    register(sandbox, ws, receiver, ['order.completed']);
    issueActiveCard(sandbox, ws);
    await sandbox.deliveries.runDue();
    expect(sandbox.events.since(0).map((e) => e.event)).not.toContain('card.issued.secrets');
    expect(receiver.received.map((r) => r.event.event)).toEqual(['order.completed']);
  });

  it('uses the key current when it is encrypted, after a key rotation', async () => {
    const { sandbox, ws, receiver } = await fixture();
    sandbox.webhooks.setPublicKey(ws, publicPem);
    register(sandbox, ws, receiver, ['card.issued.secrets']);
    issueActiveCard(sandbox, ws);
    const next = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const rotated = sandbox.webhooks.setPublicKey(ws, next.publicKey.export({ type: 'spki', format: 'pem' }).toString());
    await sandbox.deliveries.runDue();
    const data = receiver.received[0]!.event.data as { secrets_jwe: string; key_fingerprint: string };
    expect(data.key_fingerprint).toBe(rotated.key_fingerprint);
    await expect(decryptCardSecrets(data.secrets_jwe, next.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString())).resolves.toMatchObject({ cvv: expect.stringMatching(/^\d{3}$/) });
    await expect(decryptCardSecrets(data.secrets_jwe, privatePem)).rejects.toMatchObject({ reason: 'decryption_failed' });
  });
});
