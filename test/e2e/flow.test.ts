/**
 * End to end, as a developer meets the service (contract section 1, steps 1-9): a real sandbox on loopback,
 * real webhook receivers built with `@card-api/webhooks` and registered through the sandbox control API, the
 * public API driven only through the generated `CardApiClient`, card network events only through the control
 * API. Every delivered body is checked against the spec and its signature verified; money is compared as
 * decimal strings.
 *
 * Three receivers: `main` takes every event and answers 2xx; `flaky` (card.frozen, card.unfrozen) throws on
 * the first two deliveries of each event; `outage` (card.transaction.*) is down while the purchases happen.
 * The suite moves the sandbox clock through `/sandbox/clock/advance` to drive their retries.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CardApiClient, ConflictError, Decimal, meetsMinimum, OrderFailedError, type CardProduct, type CardTransaction, type PagePromise } from '@card-api/client';
import { createControlClient, startSandbox, type RunningSandbox } from '@card-api/sandbox';
import type { CardApiEvent } from '@card-api/webhooks';
import { decryptCardSecrets, publicKeyFingerprint, validateCardSecrets, type CardSecrets } from '@card-api/webhooks/secrets';
import { SpecValidator } from '../helpers/spec-validator.js';
import { ROOT } from '../helpers/spec.js';
import { dsub, dsum, jsonKeys, jsonLeaves, recordingFetch, startPrism, startReceiver, waitFor, type PrismProxy, type RawDelivery, type RawResponse, type Receiver } from './harness.js';
import { WAIT_MS } from '../helpers/limits.js';

type Control = ReturnType<typeof createControlClient>;

/** The body of a control API answer, or a thrown error with the status and the error body. */
async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || data === undefined) throw new Error(`control API ${response.url} answered ${response.status}: ${JSON.stringify(error)}`);
  return data;
}

async function all<T>(list: PagePromise<T>): Promise<T[]> {
  const items: T[] = [];
  for await (const item of list) items.push(item);
  return items;
}

const TRANSACTION_EVENTS = ['card.transaction.authorized', 'card.transaction.captured', 'card.transaction.reversed', 'card.transaction.refunded', 'card.transaction.declined'] as const;
const EXPECTED_EVENT_NAMES = [
  'card.close_initiated',
  'card.closed',
  'card.frozen',
  'card.issued.secrets',
  ...TRANSACTION_EVENTS,
  'card.unfrozen',
  'order.completed',
  'order.failed',
].sort();

/**
 * Run twice: straight to the sandbox, and once through Prism validation proxies (one per document, each
 * fetched from the sandbox so that its server is the sandbox) that fail any request or response violating
 * the public spec or the control document.
 */
const MODES = ['direct', 'through Prism'] as const;
/** The flow's webhook redelivery waits: one hour, then three (see the sandbox options below). */
const RETRY_SCHEDULE_MS = [3_600_000, 3 * 3_600_000];

describe.each(MODES)('card lifecycle end to end (contract section 1, steps 1-9), %s', (mode) => {
  const validator = new SpecValidator({ strict: true });
  /** Every raw body the public client and the control client received. */
  const responses: RawResponse[] = [];
  const controlResponses: RawResponse[] = [];
  const sandboxErrors: unknown[] = [];
  let running: RunningSandbox;
  const proxies: PrismProxy[] = [];
  let client: CardApiClient;
  let control: Control;

  let main: Receiver;
  let flaky: Receiver;
  let outage: Receiver;
  /** Side effects of the flaky receiver's handler, per event_id: it must run once per event. */
  const flakySideEffects = new Map<number, number>();
  const flakyAttempts = new Map<number, number>();
  const endpointIds: Record<'main' | 'flaky' | 'outage', number> = { main: 0, flaky: 0, outage: 0 };

  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  let keyFingerprint = '';

  // State that the steps hand on.
  let product: CardProduct;
  let walletBalance = '';
  let cardUuid = '';
  let panLast4 = '';
  let secrets: CardSecrets | undefined;
  const purchases: Record<string, CardTransaction[]> = {};

  const wallet = async () => {
    const w = await client.wallet.get();
    const usd = w.wallets.find((x) => x.currency === product.currency);
    if (usd === undefined) throw new Error(`no ${product.currency} wallet`);
    return usd;
  };
  const card = () => client.cards.get(cardUuid);
  const mainEvent = <N extends CardApiEvent['event']>(name: N, match: (e: Extract<CardApiEvent, { event: N }>) => boolean, what = name) =>
    waitFor(`${what} at the main receiver`, () => main.eventsNamed(name).find(match));

  beforeAll(async () => {
    running = await startSandbox({
      port: 0,
      // Small but non-zero: the first order read is still pending, so orders.wait must be woken by the webhook.
      orderLatencyMs: 50,
      sandboxOptions: {
        // Close stage 2 runs only through POST /sandbox/cards/{uuid}/finish-close.
        closeDelayMs: null,
        // Redeliveries hours apart on the sandbox clock (which runs with real time), so that only the test's
        // clock/advance makes one due, never the seconds a loaded machine spends between two steps: D19's 10 s
        // would pass on its own there. D19's own schedule is checked in packages/sandbox/src/webhooks.test.ts.
        webhookRetryScheduleMs: RETRY_SCHEDULE_MS,
        rateLimits: { tokenPerMinute: 100_000, ipPerMinute: 100_000 },
        onError: (error) => void sandboxErrors.push(error),
      },
    });
    const token = running.token!;
    let baseUrl = running.baseUrl;
    let origin = running.origin;
    if (mode === 'through Prism') {
      proxies.push(await startPrism(`${running.baseUrl}/openapi.yaml`, running.baseUrl, ROOT));
      proxies.push(await startPrism(`${running.origin}/sandbox/openapi.yaml`, running.origin, ROOT));
      baseUrl = proxies[0]!.url;
      origin = proxies[1]!.url;
    }
    client = new CardApiClient({ baseUrl, token, fetch: recordingFetch(responses) });
    control = createControlClient({ baseUrl: origin, token, fetch: recordingFetch(controlResponses) });

    main = await startReceiver({ name: 'main', validator });
    flaky = await startReceiver({
      name: 'flaky',
      validator,
      configure: (handler) => {
        const sideEffect = (event: Extract<CardApiEvent, { event: 'card.frozen' | 'card.unfrozen' }>) => {
          const attempt = (flakyAttempts.get(event.event_id) ?? 0) + 1;
          flakyAttempts.set(event.event_id, attempt);
          if (attempt <= 2) throw new Error(`flaky: refusing attempt ${attempt} of event ${event.event_id}`);
          flakySideEffects.set(event.event_id, (flakySideEffects.get(event.event_id) ?? 0) + 1);
        };
        handler.on('card.frozen', sideEffect).on('card.unfrozen', sideEffect);
      },
    });
    outage = await startReceiver({ name: 'outage', validator });

    // Contract steps 2 and 3: endpoints (secret shown once) and the RSA public key, in the developer settings.
    const register = async (r: Receiver, events: '*' | string[]) => {
      const { data: endpoint } = await ok(control.POST('/sandbox/webhook-endpoints', { body: { url: r.url, events, description: `e2e ${r.name}` } }));
      expect(endpoint.secret).toMatch(/^whsec_/);
      r.useSecret(endpoint.secret);
      return endpoint.id;
    };
    endpointIds.main = await register(main, '*');
    endpointIds.flaky = await register(flaky, ['card.frozen', 'card.unfrozen']);
    endpointIds.outage = await register(outage, ['card.transaction.*']);
    const listed = await ok(control.GET('/sandbox/webhook-endpoints'));
    expect(listed.data.map((e) => e.id)).toEqual([endpointIds.main, endpointIds.flaky, endpointIds.outage]);
    expect(JSON.stringify(listed)).not.toContain('whsec_');

    const { data: key } = await ok(control.PUT('/sandbox/public-key', { body: { public_key_pem: publicPem } }));
    keyFingerprint = key.key_fingerprint;
    expect(keyFingerprint).toBe(await publicKeyFingerprint(publicPem));
    // Two Prism processes load their documents on a shared, busy machine.
  });

  afterAll(async () => {
    await Promise.all(proxies.map((proxy) => proxy.close()));
    await running?.close();
    await Promise.all([main, flaky, outage].map((r) => r?.close()));
  });

  it('1. GET /ping validates the token', async () => {
    const ping = await client.ping();
    expect(ping.workspace_slug).toBe('default');
    expect([...ping.abilities].sort()).toEqual(['cards.read', 'cards.write', 'orders.read', 'transactions.read', 'wallet.read']);
  });

  it('4. GET /card-products offers an available product in the wallet currency', async () => {
    const products = await client.cardProducts.list();
    expect(products.length).toBeGreaterThan(0);
    const w = await client.wallet.get();
    const currency = w.wallets[0]?.currency;
    const pick = products.find((p) => p.available && p.currency === currency);
    expect(pick, `an available ${currency} product`).toBeDefined();
    product = pick!;
    expect(meetsMinimum('200.00', product.min_initial_topup_amount)).toBe(true);
    expect(meetsMinimum('50.00', product.min_topup_amount)).toBe(true);
  });

  it('checks the wallet before issuing', async () => {
    const w = await wallet();
    expect(w.held_balance).toBe('0.00');
    expect(w.available).toBe(w.balance);
    expect(Decimal.parse(w.balance).gte(Decimal.parse('1000.00'))).toBe(true);
    walletBalance = w.balance;
  });

  it('5-6. POST /cards answers 202; the order completes by webhook, carrying the card uuid', async () => {
    const order = await client.cards.create(
      { card_product_id: product.id, initial_topup_amount: '200.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' },
      { idempotencyKey: 'e2e-issue-0001' },
    );
    expect(order.lastResponse.status).toBe(202);
    expect(order).toMatchObject({ type: 'issue_card', status: 'pending', currency: product.currency, failure_reason: null });
    // The initial top-up plus the issue fee is held from the wallet.
    const held = dsum('200.00', product.fees.card_issue_fixed);
    expect(order.held_amount).toBe(held);

    // A polling interval far beyond the test's budget: only the webhook can end this wait.
    const done = await client.orders.wait(order.uuid, { events: main.handler!.orderEvents(), intervalMs: 60_000, timeoutMs: WAIT_MS });
    expect(done.status).toBe('completed');
    // One read before the webhook, one after it woke the wait: no polling.
    expect(responses.filter((r) => r.method === 'GET' && r.url.endsWith(`/orders/${order.uuid}`)).length).toBeLessThanOrEqual(2);
    // Straight to the sandbox the first read still sees the order pending, so the webhook ended the wait. Through
    // Prism a read takes longer than an order step, so the order may already be complete: wait for the event.
    const completed =
      mode === 'direct'
        ? main.eventsNamed('order.completed').find((e) => e.data.order_uuid === order.uuid)
        : await mainEvent('order.completed', (e) => e.data.order_uuid === order.uuid);
    expect(completed, 'order.completed received before the wait ended').toBeDefined();
    expect(completed!.data).toMatchObject({ type: 'issue_card', held_amount: held, currency: product.currency });
    cardUuid = completed!.data.card_uuid;
    expect(done.related_card_uuid).toBe(cardUuid);
    // The same idempotency key gives the same order, with no second hold.
    const again = await client.cards.create(
      { card_product_id: product.id, initial_topup_amount: '200.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' },
      { idempotencyKey: 'e2e-issue-0001' },
    );
    expect(again.uuid).toBe(order.uuid);

    const c = await card();
    expect(c).toMatchObject({ uuid: cardUuid, status: 'active', currency: product.currency, card_balance: '200.00', held_amount: '0.00', available_balance: '200.00', pan_bin: product.bin });
    panLast4 = c.pan_last4;
    expect(c.masked_pan.endsWith(panLast4)).toBe(true);
    const w = await wallet();
    expect(w).toMatchObject({ balance: dsub(walletBalance, held), held_balance: '0.00', available: dsub(walletBalance, held) });
    walletBalance = w.balance;
  });

  it('7. card.issued.secrets decrypts to a Luhn-valid PAN matching the card, a CVV and a future expiry', async () => {
    const event = await mainEvent('card.issued.secrets', (e) => e.data.card_uuid === cardUuid);
    expect(event.data.key_fingerprint).toBe(keyFingerprint);
    secrets = await decryptCardSecrets(event.data.secrets_jwe, { [keyFingerprint]: privatePem }, { keyFingerprint: event.data.key_fingerprint });
    expect(secrets.pan).toMatch(/^\d{16}$/);
    // The library's own shape check: 12-19 digits passing Luhn, CVV, month, year (decrypt ran it too; this states it).
    expect(validateCardSecrets(secrets)).toEqual(secrets);
    expect(secrets.pan.startsWith(product.bin)).toBe(true);
    expect(secrets.pan.slice(-4)).toBe(panLast4);
    expect(secrets.cvv).toMatch(/^\d{3}$/);
    expect(secrets.expiry_month).toMatch(/^(0[1-9]|1[0-2])$/);
    expect(secrets.expiry_year).toMatch(/^\d{4}$/);
    const now = new Date();
    const expiry = Number(secrets.expiry_year) * 12 + Number(secrets.expiry_month);
    expect(expiry).toBeGreaterThan(now.getUTCFullYear() * 12 + now.getUTCMonth() + 1);
    if (event.data.card_last4 !== undefined) expect(event.data.card_last4).toBe(panLast4);
  });

  it('8. simulated purchases push card.transaction.* and show as rows and merged bills', async () => {
    // The outage receiver goes down before the purchases: its deliveries fail until it is back.
    await outage.down();
    const authorize = async (body: { amount: string; merchant_currency?: string; merchant_amount?: string }, raw_name: string) =>
      (await ok(control.POST('/sandbox/cards/{uuid}/authorizations', { params: { path: { uuid: cardUuid } }, body: { ...body, merchant: { raw_name, mcc: '5814', country: 'US' } } }))).data;
    const follow = async (path: '/sandbox/purchases/{supplier_txn_id}/capture' | '/sandbox/purchases/{supplier_txn_id}/refund', id: string) =>
      (await ok(control.POST(path, { params: { path: { supplier_txn_id: id } }, body: {} }))).data;
    const reverse = async (id: string) => (await ok(control.POST('/sandbox/purchases/{supplier_txn_id}/reversal', { params: { path: { supplier_txn_id: id } } }))).data;
    const idOf = (row: CardTransaction) => {
      expect(row.supplier_txn_id).toEqual(expect.any(String));
      return row.supplier_txn_id!;
    };

    // P1: a plain purchase, authorized then captured.
    const a1 = await authorize({ amount: '25.00' }, 'BLUE BOTTLE COFFEE');
    expect(a1).toMatchObject({ type: 'authorization', status: 'pending', amount: '25.00', currency: 'USD', merchant_amount: '25.00', merchant_currency: 'USD', fx_rate: null, decline_reason: null });
    expect(await card()).toMatchObject({ card_balance: '200.00', held_amount: '25.00', available_balance: '175.00' });
    purchases.coffee = [a1, await follow('/sandbox/purchases/{supplier_txn_id}/capture', idOf(a1))];
    expect(purchases.coffee[1]).toMatchObject({ type: 'capture', status: 'posted', amount: '25.00' });

    // P2: a foreign-currency purchase: 8.50 EUR charged, 9.20 USD settled.
    const a2 = await authorize({ amount: '9.20', merchant_currency: 'EUR', merchant_amount: '8.50' }, 'CAFE DE FLORE PARIS');
    expect(a2).toMatchObject({ amount: '9.20', currency: 'USD', merchant_amount: '8.50', merchant_currency: 'EUR' });
    expect(a2.fx_rate).not.toBeNull();
    expect(Decimal.parse(a2.fx_rate!).mul(Decimal.parse('8.50')).toFixed(2)).toBe('9.20');
    purchases.fx = [a2, await follow('/sandbox/purchases/{supplier_txn_id}/capture', idOf(a2))];
    expect(purchases.fx[1]).toMatchObject({ type: 'capture', amount: '9.20', merchant_amount: '8.50', merchant_currency: 'EUR' });

    // P3: a zero-amount card-verification probe holds nothing.
    const a3 = await authorize({ amount: '0.00' }, 'APPLE.COM/BILL');
    expect(a3).toMatchObject({ type: 'authorization', amount: '0.00' });
    purchases.probe = [a3];
    expect((await card()).held_amount).toBe('0.00');

    // P4: a hold the merchant reverses.
    const a4 = await authorize({ amount: '40.00' }, 'HERTZ RENT A CAR');
    purchases.reversed = [a4, await reverse(idOf(a4))];
    expect(purchases.reversed[1]).toMatchObject({ type: 'reversal', status: 'reversed' });

    // P5: captured, then refunded in full by the merchant.
    const a5 = await authorize({ amount: '30.00' }, 'ZALANDO');
    purchases.refunded = [a5, await follow('/sandbox/purchases/{supplier_txn_id}/capture', idOf(a5)), await follow('/sandbox/purchases/{supplier_txn_id}/refund', idOf(a5))];
    expect(purchases.refunded[2]).toMatchObject({ type: 'refund', amount: '30.00' });

    // A decline: a failed row with the merchant leg only.
    const d = (await ok(control.POST('/sandbox/cards/{uuid}/declines', { params: { path: { uuid: cardUuid } }, body: { merchant_amount: '99.99', reason: 'cvv_mismatch', merchant: { raw_name: 'SHADY ELECTRONICS' } } }))).data;
    expect(d).toMatchObject({ type: 'decline', status: 'failed', amount: '0.00', merchant_amount: '99.99', fx_rate: null, decline_reason: 'cvv_mismatch' });
    purchases.declined = [d];

    const rows = Object.values(purchases).flat();
    expect(rows).toHaveLength(11);

    // One event per row, carrying exactly the row; event names follow the lifeline (3.3).
    const eventOf: Record<string, string> = {
      authorization: 'card.transaction.authorized',
      capture: 'card.transaction.captured',
      reversal: 'card.transaction.reversed',
      refund: 'card.transaction.refunded',
      decline: 'card.transaction.declined',
    };
    const byUuid = new Map<string, Extract<CardApiEvent, { event: `card.transaction.${string}` }>>();
    await waitFor('11 card.transaction.* events at the main receiver', () => {
      for (const e of main.handled) if (e.event.startsWith('card.transaction.')) byUuid.set((e as { data: { transaction: CardTransaction } }).data.transaction.uuid, e as never);
      return rows.every((r) => byUuid.has(r.uuid));
    });
    for (const row of rows) {
      const event = byUuid.get(row.uuid)!;
      expect(event.event).toBe(eventOf[row.type]);
      expect(event.data).toEqual({ card_uuid: cardUuid, pan_last4: panLast4, transaction: row });
    }

    // GET /cards/{uuid}/transactions: the same rows, each equal to its webhook's transaction.
    const listed = await all(client.cards.listTransactions(cardUuid, { per_page: 5 }));
    expect(listed.map((r) => r.uuid).sort()).toEqual(rows.map((r) => r.uuid).sort());
    /** The row as it reads now: its webhook's transaction, and for an authorization the status of its hold since (D30). */
    const current = (uuid: string): CardTransaction => {
      const pushed = byUuid.get(uuid)!.data.transaction;
      if (pushed.type !== 'authorization') return pushed;
      const end = rows.find((x) => x.supplier_txn_id === pushed.supplier_txn_id && (x.type === 'capture' || x.type === 'reversal'));
      return end === undefined ? pushed : { ...pushed, status: end.type === 'capture' ? 'posted' : 'reversed', posted_at: end.posted_at };
    };
    for (const r of listed) expect(r).toEqual(current(r.uuid));

    // GET /cards/{uuid}/consumption-bills: one bill per purchase, display rules of 2.6.
    const bills = await all(client.cards.listConsumptionBills(cardUuid));
    expect(bills).toHaveLength(6);
    const billOf = (name: string) => {
      const uuids = purchases[name]!.map((r) => r.uuid).sort();
      const bill = bills.find((b) => b.lines.some((l) => l.uuid === uuids[0]));
      expect(bill, `the bill of ${name}`).toBeDefined();
      expect(bill!.lines.map((l) => l.uuid).sort()).toEqual(uuids);
      for (const line of bill!.lines) expect(line).toEqual(current(line.uuid));
      return bill!;
    };
    expect(billOf('coffee')).toMatchObject({ kind: 'purchase', status: 'settled', amount: '25.00', currency: 'USD', authorized_amount: null, settled_amount: '25.00', merchant_amount: '25.00', merchant_currency: 'USD', fx_rate: null, decline_reason: null });
    expect(billOf('coffee').settled_at).not.toBeNull();
    expect(billOf('fx')).toMatchObject({ kind: 'purchase', status: 'settled', amount: '9.20', settled_amount: '9.20', merchant_amount: '8.50', merchant_currency: 'EUR', fx_rate: a2.fx_rate });
    expect(billOf('probe')).toMatchObject({ kind: 'purchase', status: 'authorized', amount: '0.00', authorized_amount: '0.00', settled_amount: null });
    expect(billOf('reversed')).toMatchObject({ kind: 'purchase', status: 'reversed', amount: '40.00', authorized_amount: null, settled_amount: null });
    expect(billOf('refunded')).toMatchObject({ kind: 'purchase', status: 'refunded', amount: '30.00', settled_amount: '30.00' });
    expect(billOf('declined')).toMatchObject({ kind: 'decline', status: 'declined', amount: '0.00', settled_amount: '0.00', merchant_amount: '99.99', fx_rate: null, decline_reason: 'cvv_mismatch' });
    expect(billOf('coffee').merchant?.raw_name).toBe('BLUE BOTTLE COFFEE');

    // Money: 200.00 - 25.00 - 9.20 - 30.00 + 30.00; nothing held; the wallet untouched.
    expect(await card()).toMatchObject({ card_balance: '165.80', held_amount: '0.00', available_balance: '165.80', lifetime_spend_amount: '64.20', lifetime_refund_amount: '30.00' });
    expect((await wallet()).balance).toBe(walletBalance);
    const spend = await all(client.ledger.list({ reason: 'card_spend', reference_uuid: cardUuid }));
    expect(dsum(...spend.filter((e) => e.account_code === 'card').map((e) => e.amount))).toBe('64.20');
    const refunds = await all(client.ledger.list({ reason: 'card_spend_refund', reference_uuid: cardUuid }));
    expect(refunds.filter((e) => e.account_code === 'card').map((e) => [e.direction, e.amount])).toEqual([['credit', '30.00']]);
  });

  it('9a. freeze and unfreeze: orders complete by webhook, card.frozen (origin workspace) and card.unfrozen', async () => {
    const freeze = await client.cards.freeze(cardUuid, { reason: 'e2e: phone lost' });
    expect(freeze).toMatchObject({ type: 'freeze', status: 'pending', held_amount: '0.00' });
    await client.orders.wait(freeze.uuid, { events: main.handler!.orderEvents(), intervalMs: 60_000, timeoutMs: WAIT_MS });
    const frozen = await mainEvent('card.frozen', (e) => e.data.card_uuid === cardUuid);
    expect(frozen.data).toMatchObject({ card_uuid: cardUuid, origin: 'workspace', reason: 'e2e: phone lost', status: 'frozen', pan_last4: panLast4 });
    expect((await card()).status).toBe('frozen');
    await expect(client.cards.freeze(cardUuid)).rejects.toBeInstanceOf(ConflictError);

    // A frozen card declines at once.
    const declined = (await ok(control.POST('/sandbox/cards/{uuid}/authorizations', { params: { path: { uuid: cardUuid } }, body: { amount: '5.00' } }))).data;
    expect(declined).toMatchObject({ type: 'decline', status: 'failed', decline_reason: 'card_frozen', amount: '0.00', merchant_amount: '5.00' });
    purchases.frozenDecline = [declined];
    await mainEvent('card.transaction.declined', (e) => e.data.transaction.uuid === declined.uuid);

    const unfreeze = await client.cards.unfreeze(cardUuid);
    expect(unfreeze.type).toBe('unfreeze');
    await client.orders.wait(unfreeze.uuid, { events: main.handler!.orderEvents(), intervalMs: 60_000, timeoutMs: WAIT_MS });
    const unfrozen = await mainEvent('card.unfrozen', (e) => e.data.card_uuid === cardUuid);
    expect(unfrozen.data).toMatchObject({ card_uuid: cardUuid, status: 'active' });
    expect((await card()).status).toBe('active');
  });

  it('a receiver that fails twice gets each event once: three attempts, same bytes, fresh signatures', async () => {
    // First attempts already failed (the handler threw, the receiver answered 500).
    const attemptsOf = (id: number) => flaky.raw.filter((d) => d.eventId === id);
    const ids = await waitFor('first flaky attempts of card.frozen and card.unfrozen', () => {
      const names = new Set(flaky.raw.map((d) => d.event));
      return names.has('card.frozen') && names.has('card.unfrozen') && [...new Set(flaky.raw.map((d) => d.eventId!))];
    });
    expect(ids).toHaveLength(2);
    for (const id of ids) expect(attemptsOf(id).map((d) => d.status)).toEqual([500]);
    // The outage receiver has been refusing connections since the purchases.
    expect(outage.raw).toHaveLength(0);
    const outagePending = await waitFor('the outage deliveries to fail once', async () => {
      const { data } = await ok(control.GET('/sandbox/webhook-deliveries'));
      const mine = data.filter((d) => d.endpoint_id === endpointIds.outage);
      return mine.length === 12 && mine.every((d) => d.status === 'pending' && d.attempts === 1) && mine;
    });
    expect(outagePending.every((d) => d.last_error !== null && d.last_status === null)).toBe(true);

    const advance = async (seconds: number) => {
      await ok(control.POST('/sandbox/clock/advance', { body: { seconds } }));
    };
    // The second attempt after the schedule's first wait (the flaky handler throws again, the outage receiver is
    // still down)...
    await advance(RETRY_SCHEDULE_MS[0]! / 1000);
    await waitFor('second flaky attempts', () => ids.every((id) => attemptsOf(id).length === 2));
    expect(outage.raw).toHaveLength(0);
    // ...then the outage receiver comes back, and the third attempt after the second wait succeeds everywhere.
    await outage.up();
    await advance(RETRY_SCHEDULE_MS[1]! / 1000);
    await waitFor('third flaky attempts', () => ids.every((id) => attemptsOf(id).length === 3));

    for (const id of ids) {
      const attempts = attemptsOf(id);
      expect(attempts.map((d) => d.status)).toEqual([500, 500, 200]);
      expect(attempts.map((d) => d.outcome)).toEqual(['failed', 'failed', 'handled']);
      // Same body bytes on every attempt, re-signed at each attempt (6.2). The timestamp is the real time of the
      // attempt (what a receiver checks against its own clock), so attempts the moved clock made due at once
      // may share a second; each one verified on the receiver's real clock.
      expect(attempts.every((d) => d.body.equals(attempts[0]!.body))).toBe(true);
      expect(attempts.every((d, i) => i === 0 || d.t >= attempts[i - 1]!.t)).toBe(true);
      expect(attempts.every((d) => d.verifyError === null)).toBe(true);
      // The side effect ran exactly once per event_id.
      expect(flakySideEffects.get(id)).toBe(1);
      // The same event the main receiver got, byte for byte.
      expect(main.raw.find((d) => d.eventId === id)?.body.equals(attempts[0]!.body)).toBe(true);
    }
    expect(flaky.handled.map((e) => e.event).sort()).toEqual(['card.frozen', 'card.unfrozen']);

    // The outage receiver got every card.transaction.* event once it was back, each handled once.
    const expected = main.handled.filter((e) => e.event.startsWith('card.transaction.')).map((e) => e.event_id!).sort((a, b) => a - b);
    expect(expected).toHaveLength(12);
    await waitFor('every transaction event at the outage receiver', () => outage.handled.length === expected.length);
    expect(outage.handled.map((e) => e.event_id!).sort((a, b) => a - b)).toEqual(expected);
    expect(outage.raw.every((d) => d.status === 200 && d.outcome === 'handled')).toBe(true);
    for (const d of outage.raw) expect(d.body.equals(main.raw.find((m) => m.eventId === d.eventId)!.body)).toBe(true);

    const { data: deliveries } = await ok(control.GET('/sandbox/webhook-deliveries'));
    for (const d of deliveries.filter((x) => x.endpoint_id !== endpointIds.main)) expect(d).toMatchObject({ status: 'succeeded', attempts: 3, last_error: null });
  });

  it('9b. a failed top-up releases its hold; a retry with a new key tops up, fees per the product', async () => {
    const amount = '50.00';
    const fee = Decimal.parse(product.fees.topup_fixed).add(Decimal.parse(amount).mul(Decimal.parse(product.fees.topup_percent))).toFixed(2);
    const held = dsum(amount, fee);

    await ok(control.POST('/sandbox/forced-failures', { body: { card_uuid: cardUuid, failure_reason: 'business4xx' } }));
    const failing = await client.cards.topup(cardUuid, { amount }, { idempotencyKey: 'e2e-topup-0001' });
    expect(failing).toMatchObject({ type: 'topup_card', held_amount: held });
    const error = await client.orders.wait(failing.uuid, { events: main.handler!.orderEvents(), intervalMs: 60_000, timeoutMs: WAIT_MS }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OrderFailedError);
    expect((error as OrderFailedError).failureReason).toBe('business4xx');
    const failed = await mainEvent('order.failed', (e) => e.data.order_uuid === failing.uuid);
    expect(failed.data).toMatchObject({ type: 'topup_card', card_uuid: cardUuid, failure_reason: 'business4xx' });
    // Held funds are back; the card did not move; the same key answers the same failed order.
    expect(await wallet()).toMatchObject({ balance: walletBalance, held_balance: '0.00' });
    expect((await card()).card_balance).toBe('165.80');
    const same = await client.cards.topup(cardUuid, { amount }, { idempotencyKey: 'e2e-topup-0001' });
    expect(same).toMatchObject({ uuid: failing.uuid, status: 'failed' });

    const order = await client.cards.topup(cardUuid, { amount }, { idempotencyKey: 'e2e-topup-0002' });
    expect(order.held_amount).toBe(held);
    await client.orders.wait(order.uuid, { events: main.handler!.orderEvents(), intervalMs: 60_000, timeoutMs: WAIT_MS });
    expect(await card()).toMatchObject({ card_balance: dsum('165.80', amount), lifetime_topup_amount: dsum('200.00', amount) });
    const w = await wallet();
    expect(w).toMatchObject({ balance: dsub(walletBalance, held), held_balance: '0.00' });
    walletBalance = w.balance;
    const fees = await all(client.ledger.list({ reason: 'card_topup_fee', reference_uuid: cardUuid }));
    expect(fees.filter((e) => e.direction === 'debit').map((e) => e.amount)).toEqual([fee]);
  });

  it('9c. close: stage 1 card.close_initiated, order.completed, stage 2 card.closed refunds the balance to the wallet', async () => {
    const balance = (await card()).card_balance;
    expect(balance).toBe('215.80');
    const order = await client.cards.close(cardUuid, { reason: 'e2e: done' });
    expect(order.type).toBe('close_card');
    const initiated = await mainEvent('card.close_initiated', (e) => e.data.card_uuid === cardUuid);
    expect(initiated.data).toMatchObject({ origin: 'workspace', reason: 'e2e: done', status: 'pending_close' });
    await client.orders.wait(order.uuid, { events: main.handler!.orderEvents(), intervalMs: 60_000, timeoutMs: WAIT_MS });
    const completed = await mainEvent('order.completed', (e) => e.data.order_uuid === order.uuid);
    expect(completed.event_id).toBeGreaterThan(initiated.event_id);
    expect(await card()).toMatchObject({ status: 'pending_close', card_balance: balance });
    // Spend stopped at stage 1.
    const refused = (await ok(control.POST('/sandbox/cards/{uuid}/authorizations', { params: { path: { uuid: cardUuid } }, body: { amount: '1.00' } }))).data;
    expect(refused).toMatchObject({ type: 'decline', decline_reason: 'card_frozen' });
    purchases.closingDecline = [refused];
    await mainEvent('card.transaction.declined', (e) => e.data.transaction.uuid === refused.uuid);

    const closedCard = (await ok(control.POST('/sandbox/cards/{uuid}/finish-close', { params: { path: { uuid: cardUuid } } }))).data;
    expect(closedCard).toMatchObject({ uuid: cardUuid, status: 'closed', card_balance: '0.00' });
    const closed = await mainEvent('card.closed', (e) => e.data.card_uuid === cardUuid);
    expect(closed.data).toMatchObject({ refund_amount: balance, currency: product.currency, status: 'closed' });
    expect(closed.event_id).toBeGreaterThan(completed.event_id);

    const c = await card();
    expect(c).toMatchObject({ status: 'closed', card_balance: '0.00' });
    expect(c.closed_at).not.toBeNull();
    const w = await wallet();
    expect(w).toMatchObject({ balance: dsum(walletBalance, balance), held_balance: '0.00', available: dsum(walletBalance, balance) });
    const refunds = await all(client.ledger.list({ reason: 'card_close_refund', reference_uuid: cardUuid }));
    expect(refunds.map((e) => [e.account_code, e.direction, e.amount]).sort()).toEqual([
      ['card', 'debit', balance],
      ['wallet.available', 'credit', balance],
    ]);
    await expect(client.cards.close(cardUuid)).rejects.toBeInstanceOf(ConflictError);
  });

  it('every delivery was spec-valid, correctly signed, acknowledged; the events seen are the expected set', async () => {
    const deliveries: RawDelivery[] = [...main.raw, ...flaky.raw, ...outage.raw];
    expect(deliveries.filter((d) => d.specErrors.length > 0).map((d) => `${d.receiver} ${d.event}: ${d.specErrors.join('; ')}`)).toEqual([]);
    expect(deliveries.filter((d) => d.verifyError !== null).map((d) => `${d.receiver} ${d.event}: ${d.verifyError}`)).toEqual([]);
    expect(deliveries.filter((d) => d.status === 400)).toEqual([]);
    // The main receiver acknowledged everything at the first attempt: one request per event.
    expect(main.raw.every((d) => d.status === 200 && d.outcome === 'handled')).toBe(true);
    expect(new Set(main.raw.map((d) => d.eventId)).size).toBe(main.raw.length);
    // Every sandbox event has its event_id, card.issued.secrets included (optional there in the spec, D13).
    expect(main.handled.map((e) => e.event_id!).sort((a, b) => a - b)).toEqual(main.raw.map((d) => d.eventId!).sort((a, b) => a - b));
    expect([...new Set(main.handled.map((e) => e.event))].sort()).toEqual(EXPECTED_EVENT_NAMES);
    // The sandbox's own record agrees: every delivery succeeded, none failed or waits.
    const { data } = await ok(control.GET('/sandbox/webhook-deliveries'));
    // main: one per event; flaky: card.frozen and card.unfrozen; outage: the 13 card.transaction.* events.
    expect(data.length).toBe(main.raw.length + 2 + 13);
    expect(data.filter((d) => d.status !== 'succeeded').map((d) => `${d.event} #${d.event_id} -> ${d.endpoint_id}: ${d.status}`)).toEqual([]);
    const counts = Object.fromEntries(EXPECTED_EVENT_NAMES.map((n) => [n, main.handled.filter((e) => e.event === n).length]));
    expect(counts).toEqual({
      'card.close_initiated': 1,
      'card.closed': 1,
      'card.frozen': 1,
      'card.issued.secrets': 1,
      'card.transaction.authorized': 5,
      'card.transaction.captured': 3,
      'card.transaction.declined': 3,
      'card.transaction.refunded': 1,
      'card.transaction.reversed': 1,
      'card.unfrozen': 1,
      'order.completed': 5,
      'order.failed': 1,
    });
  });

  it('card secrets never appear in a REST response or in plain text in a webhook', async () => {
    expect(secrets).toBeDefined();
    const { pan, cvv } = secrets!;
    const middle = new RegExp(`(?<![0-9])${pan.slice(6, 12)}(?![0-9])`);
    // Also list the cards once, so the list view is scanned too.
    await client.cards.list();
    expect(responses.length).toBeGreaterThan(30);
    for (const r of [...responses, ...controlResponses]) expect(r.body, `${r.method} ${r.url}`).not.toContain(pan);
    // Card reads (detail and list, public and the control API's finish-close): no PAN middle digits, no secret field, no CVV value.
    const cardReads = [...responses, ...controlResponses].filter((r) => /\/cards(\/[0-9a-f-]{36}(\/finish-close)?)?$/.test(new URL(r.url).pathname) && r.status < 300);
    expect(cardReads.filter((r) => r.method === 'GET' && new URL(r.url).pathname.endsWith('/cards'))).toHaveLength(1);
    expect(cardReads.length).toBeGreaterThan(10);
    for (const r of cardReads) {
      expect(middle.test(r.body), `${r.method} ${r.url}: PAN middle digits`).toBe(false);
      const body = JSON.parse(r.body) as unknown;
      const keys = jsonKeys(body);
      for (const k of ['pan', 'cvv', 'cvc', 'expiry_month', 'expiry_year', 'secrets_jwe']) expect(keys.has(k), `${r.url} has ${k}`).toBe(false);
      expect(jsonLeaves(body), `${r.url} carries the CVV as a value`).not.toContain(cvv);
    }
    for (const d of [...main.raw, ...flaky.raw, ...outage.raw]) expect(d.body.toString('utf8')).not.toContain(pan);
  });

  it('left the sandbox consistent, with no background error', () => {
    expect(running.sandbox.admin.audit()).toEqual([]);
    expect(sandboxErrors).toEqual([]);
  });

  it.runIf(mode === 'through Prism')('Prism found no violation in any request or response, public or control', () => {
    const all = [...responses, ...controlResponses];
    expect(all.length).toBeGreaterThan(50);
    expect(all.filter((r) => r.violations !== undefined || r.body.includes('stoplight.io/prism/errors')).map((r) => `${r.method} ${r.url} ${r.status}: ${r.violations ?? r.body}`)).toEqual([]);
  });
});
