/**
 * The card-api-kit demo: the whole life of a virtual card against a local sandbox, in about a second.
 *
 *   node --import tsx scripts/demo.ts        (or `make demo` / `npm run demo`)
 *
 * What it does, in the order of the contract's "typical flow" (docs: /work/shared/card-issuing-api.md, section 1):
 *   - starts the sandbox in this process on 127.0.0.1 (a free port) and a webhook receiver next to it, built with
 *     `@card-api/webhooks` (signature check, deduplication, typed events);
 *   - registers the receiver and an RSA public key through the sandbox's control API (`/sandbox/...`), which
 *     plays the real service's developer settings screen;
 *   - drives the public API with the generated `@card-api/client`: ping, products, wallet, issue a card and wait
 *     for its order by webhook, decrypt the card secrets, purchases (simulated through the control API, as a card
 *     network would), freeze and unfreeze, top up, close; and prints the wallet ledger.
 *
 * Card secrets are only ever printed masked. Exit status 0 on success, 1 with the reason on any failure.
 */
import { generateKeyPair } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { CardApiClient, Decimal, type CardTransaction, type ConsumptionBill, type LedgerEntry } from '@card-api/client';
import { createControlClient, startSandbox, type RunningSandbox } from '@card-api/sandbox';
import { createWebhookHandler, type CardApiEvent, type EventName, type EventOf } from '@card-api/webhooks';
import { toNodeHandler } from '@card-api/webhooks/adapters';
import { decryptCardSecrets, publicKeyFingerprint, type CardSecrets } from '@card-api/webhooks/secrets';

/**
 * How long any one wait (an order, a webhook) may take before the demo gives up, and the whole run. Both only turn
 * a hang into a message: an event takes milliseconds, but a busy machine (or the test suite beside it) may starve
 * the demo for seconds, and that is not a failure.
 */
const WAIT_MS = 2 * 60_000;
const WATCHDOG_MS = 5 * 60_000;

class DemoError extends Error {
  override readonly name = 'DemoError';
}

function check(condition: unknown, message: string): asserts condition {
  if (!condition) throw new DemoError(message);
}

/** The body of a control API answer; throws with the status and error body otherwise. */
async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || data === undefined) throw new DemoError(`control API ${new URL(response.url).pathname} answered ${response.status}: ${JSON.stringify(error)}`);
  return data;
}

const short = (uuid: string) => `${uuid.slice(0, 8)}…`;
const pad = (text: string, width: number) => text.padEnd(width);
const money = (amount: string, width = 8) => amount.padStart(width);

/**
 * The webhooks the receiver verified and handled, and a way to wait for one. Every event is kept, so a wait
 * that starts after its event arrived still finds it.
 */
class Inbox {
  readonly events: CardApiEvent[] = [];
  readonly #waiters = new Set<(event: CardApiEvent) => void>();

  add(event: CardApiEvent): void {
    this.events.push(event);
    for (const waiter of [...this.#waiters]) waiter(event);
  }

  /** The first `name` event matching `match`, now or within {@link WAIT_MS}. */
  wait<N extends EventName>(name: N, match: (event: EventOf<N>) => boolean = () => true): Promise<EventOf<N>> {
    const test = (e: CardApiEvent): e is EventOf<N> => e.event === name && match(e as EventOf<N>);
    const found = this.events.find(test);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters.delete(waiter);
        reject(new DemoError(`no ${name} webhook within ${WAIT_MS} ms`));
      }, WAIT_MS);
      const waiter = (e: CardApiEvent) => {
        if (!test(e)) return;
        clearTimeout(timer);
        this.#waiters.delete(waiter);
        resolve(e);
      };
      this.#waiters.add(waiter);
    });
  }
}

/** What a run did, for callers (and a test) that want more than the printed lines. */
export interface DemoResult {
  webhooks: number;
  cardUuid: string;
  walletBalance: string;
  ms: number;
}

/** Runs the whole demo, printing through `print`; resolves when everything is closed again. */
export async function runDemo(print: (line: string) => void = console.log): Promise<DemoResult> {
  const started = Date.now();
  let step = 0;
  const say = (text: string) => print(`${String(++step).padStart(2)}. ${text}`);
  const more = (text: string) => print(`    ${text}`.trimEnd());

  const inbox = new Inbox();
  const handlerErrors: unknown[] = [];
  let sandbox: RunningSandbox | undefined;
  let listener: ((req: http.IncomingMessage, res: http.ServerResponse) => void) | undefined;
  const receiverServer = http.createServer((req, res) => {
    if (listener !== undefined) return listener(req, res);
    res.statusCode = 503; // not ready yet: the service will retry
    res.end();
  });

  try {
    // The card-secrets key pair; RSA key generation takes a moment, so it runs while the sandbox starts.
    const keyPair = promisify(generateKeyPair)('rsa', { modulusLength: 2048 });

    // ---- 1. The sandbox and a webhook receiver, both on loopback ----
    sandbox = await startSandbox({
      port: 0,
      orderLatencyMs: 50,
      // Close stage 2 ("days may pass") runs when we ask for it below, through the control API.
      sandboxOptions: { closeDelayMs: null, onError: (error) => void handlerErrors.push(error) },
    });
    await new Promise<void>((resolve) => receiverServer.listen(0, '127.0.0.1', resolve));
    const receiverUrl = `http://127.0.0.1:${(receiverServer.address() as AddressInfo).port}/webhooks`;
    const token = sandbox.token!;
    const client = new CardApiClient({ baseUrl: sandbox.baseUrl, token });
    const control = createControlClient({ baseUrl: sandbox.origin, token });
    say(`Sandbox at ${sandbox.baseUrl}; webhook receiver at ${receiverUrl}`);

    // ---- 2-3. Developer settings: the webhook endpoint (its secret is shown once) and the RSA public key ----
    const { data: endpoint } = await ok(control.POST('/sandbox/webhook-endpoints', { body: { url: receiverUrl, events: '*', description: 'demo receiver' } }));
    const { publicKey, privateKey } = await keyPair;
    const privatePem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const { data: key } = await ok(control.PUT('/sandbox/public-key', { body: { public_key_pem: publicKey.export({ type: 'spki', format: 'pem' }).toString() } }));
    check(key.key_fingerprint === (await publicKeyFingerprint(privatePem)), 'the uploaded key has an unexpected fingerprint');

    let secrets: CardSecrets | undefined;
    const webhooks = createWebhookHandler({
      secrets: endpoint.secret,
      onUnknownEvent: (event) => print(`    (ignored an event this code does not know: ${event.event})`),
      onError: (error) => void handlerErrors.push(error),
    })
      .on('card.issued.secrets', async (event) => {
        // The only place card secrets ever appear: decrypt with the private key matching key_fingerprint.
        secrets = await decryptCardSecrets(event.data.secrets_jwe, { [key.key_fingerprint]: privatePem }, { keyFingerprint: event.data.key_fingerprint });
      })
      .on('card.*', (event) => inbox.add(event))
      .on('order.*', (event) => inbox.add(event));
    listener = (req, res) => void toNodeHandler(webhooks)(req, res);
    say(`Registered webhook endpoint #${endpoint.id} for every event (signing secret kept, not printed) and an RSA-2048 key (${key.key_fingerprint.slice(0, 12)}…)`);

    // ---- Step 1 of the contract: the token works ----
    const ping = await client.ping();
    say(`GET /ping → workspace "${ping.workspace_slug}", abilities ${ping.abilities.join(', ')}`);

    // ---- Step 4: pick a product ----
    const products = await client.cardProducts.list();
    const startWallet = (await client.wallet.get()).wallets[0];
    check(startWallet !== undefined, 'the workspace has no wallet');
    const product = products.find((p) => p.available && p.currency === startWallet.currency);
    check(product !== undefined, `no available ${startWallet.currency} card product`);
    const pct = Decimal.parse(product.fees.topup_percent).mul(Decimal.parse('100')).toFixed(2);
    say(`GET /card-products → ${products.length} products; using #${product.id} "${product.display_name}" (issue fee ${product.fees.card_issue_fixed}, top-up fee ${product.fees.topup_fixed} + ${pct} %)`);
    say(`GET /wallet → ${startWallet.currency} balance ${startWallet.balance} (available ${startWallet.available}, held ${startWallet.held_balance})`);

    // ---- Steps 5-6: issue a card; the order completes by webhook ----
    const issue = await client.cards.create({ card_product_id: product.id, initial_topup_amount: '100.00', cardholder_first_name: 'Ada', cardholder_last_name: 'Lovelace' });
    say(`POST /cards (initial top-up 100.00) → ${issue.lastResponse.status}, order ${short(issue.uuid)} ${issue.status}, ${issue.held_amount} ${issue.currency} held from the wallet`);
    const done = await client.orders.wait(issue.uuid, { events: webhooks.orderEvents(), timeoutMs: WAIT_MS });
    const completed = await inbox.wait('order.completed', (e) => e.data.order_uuid === issue.uuid);
    const cardUuid = completed.data.card_uuid;
    more(`← webhook order.completed #${completed.event_id}: order ${done.status}, card ${short(cardUuid)}`);
    const card = await client.cards.get(cardUuid);
    check(card.status === 'active', `the new card is ${card.status}, not active`);
    more(`GET /cards/{uuid} → ${card.status}, balance ${card.card_balance} ${card.currency}, ${card.masked_pan}`);

    // ---- Step 7: the card secrets, decrypted (and only ever printed masked) ----
    const secretsEvent = await inbox.wait('card.issued.secrets', (e) => e.data.card_uuid === cardUuid);
    check(secrets !== undefined, 'card.issued.secrets arrived but was not decrypted');
    check(secrets.pan.endsWith(card.pan_last4), "the decrypted PAN does not end with the card's pan_last4");
    say(`← webhook card.issued.secrets #${secretsEvent.event_id}, decrypted: PAN •••• ${secrets.pan.slice(-4)}, CVV •••, expires ${secrets.expiry_month}/${secrets.expiry_year.slice(-2)}`);

    // ---- Step 8: purchases, as the card network would send them ----
    say('Purchases, simulated with POST /sandbox/cards/{uuid}/authorizations and /sandbox/purchases/{id}/…:');
    const seen = async (row: CardTransaction) => {
      const event = await inbox.wait(`card.transaction.${EVENT_SUFFIX[row.type] ?? row.type}` as 'card.transaction.authorized', (e) => e.data.transaction.uuid === row.uuid);
      const merchant = row.merchant.raw_name;
      const leg = row.fx_rate !== null ? ` (${row.merchant_amount} ${row.merchant_currency}, rate ${row.fx_rate})` : row.type === 'decline' ? ` (${row.merchant_amount} ${row.merchant_currency} attempted: ${row.decline_reason})` : '';
      more(`← #${String(event.event_id).padEnd(3)} ${pad(event.event, 28)} ${money(row.amount, 6)} ${row.currency}  ${merchant}${leg}`);
      return row;
    };
    const authorize = async (body: { amount: string; merchant_currency?: string; merchant_amount?: string }, raw_name: string) =>
      seen((await ok(control.POST('/sandbox/cards/{uuid}/authorizations', { params: { path: { uuid: cardUuid } }, body: { ...body, merchant: { raw_name } } }))).data);
    const then = async (action: 'capture' | 'reversal' | 'refund', row: CardTransaction) =>
      seen((await ok(control.POST(`/sandbox/purchases/{supplier_txn_id}/${action}`, { params: { path: { supplier_txn_id: row.supplier_txn_id! } } }))).data);

    await then('capture', await authorize({ amount: '25.00' }, 'BLUE BOTTLE COFFEE'));
    await then('capture', await authorize({ amount: '9.20', merchant_currency: 'EUR', merchant_amount: '8.50' }, 'CAFE DE FLORE PARIS'));
    await authorize({ amount: '0.00' }, 'APPLE.COM/BILL'); // a card-verification probe: holds nothing
    await then('reversal', await authorize({ amount: '40.00' }, 'HERTZ RENT A CAR'));
    await then('refund', await then('capture', await authorize({ amount: '30.00' }, 'ZALANDO')));
    await seen((await ok(control.POST('/sandbox/cards/{uuid}/declines', { params: { path: { uuid: cardUuid } }, body: { merchant_amount: '99.99', reason: 'cvv_mismatch', merchant: { raw_name: 'SHADY ELECTRONICS' } } }))).data);

    const bills: ConsumptionBill[] = [];
    for await (const bill of client.cards.listConsumptionBills(cardUuid)) bills.push(bill);
    check(bills.length === 6, `expected 6 consumption bills, got ${bills.length}`);
    more(`GET /cards/{uuid}/consumption-bills → ${bills.length} bills, one per purchase (its rows merged):`);
    for (const bill of bills.reverse()) more(`  ${pad(bill.status, 10)} ${money(shownAmount(bill))} ${bill.currency}  ${pad(bill.merchant?.raw_name ?? '', 20)} ${billNote(bill)}`);
    const afterPurchases = await client.cards.get(cardUuid);
    check(afterPurchases.card_balance === '65.80' && afterPurchases.held_amount === '0.00', `unexpected card balance ${afterPurchases.card_balance} (held ${afterPurchases.held_amount})`);
    more(`Card balance ${afterPurchases.card_balance} ${afterPurchases.currency} (spent ${afterPurchases.lifetime_spend_amount}, refunded ${afterPurchases.lifetime_refund_amount}, nothing held)`);

    // ---- Step 9: freeze, unfreeze, top up, close ----
    const freeze = await client.cards.freeze(cardUuid, { reason: 'Phone lost' });
    await client.orders.wait(freeze.uuid, { events: webhooks.orderEvents(), timeoutMs: WAIT_MS });
    const frozen = await inbox.wait('card.frozen', (e) => e.data.card_uuid === cardUuid);
    say(`POST /cards/{uuid}/freeze → order ${short(freeze.uuid)} completed; ← #${frozen.event_id} card.frozen (origin ${frozen.data.origin}, "${frozen.data.reason}")`);
    const unfreeze = await client.cards.unfreeze(cardUuid);
    await client.orders.wait(unfreeze.uuid, { events: webhooks.orderEvents(), timeoutMs: WAIT_MS });
    const unfrozen = await inbox.wait('card.unfrozen', (e) => e.data.card_uuid === cardUuid);
    say(`POST /cards/{uuid}/unfreeze → order ${short(unfreeze.uuid)} completed; ← #${unfrozen.event_id} card.unfrozen, card ${unfrozen.data.status}`);

    const topup = await client.cards.topup(cardUuid, { amount: '50.00' });
    const fee = Decimal.parse(topup.held_amount).sub(Decimal.parse('50.00')).toFixed(2);
    await client.orders.wait(topup.uuid, { events: webhooks.orderEvents(), timeoutMs: WAIT_MS });
    const toppedUp = await inbox.wait('order.completed', (e) => e.data.order_uuid === topup.uuid);
    const afterTopup = await client.cards.get(cardUuid);
    say(`POST /cards/{uuid}/topup 50.00 → ${topup.held_amount} held (50.00 + fee ${fee}); ← #${toppedUp.event_id} order.completed; card balance ${afterTopup.card_balance}`);

    const close = await client.cards.close(cardUuid, { reason: 'Demo finished' });
    const initiated = await inbox.wait('card.close_initiated', (e) => e.data.card_uuid === cardUuid);
    await client.orders.wait(close.uuid, { events: webhooks.orderEvents(), timeoutMs: WAIT_MS });
    const closeDone = await inbox.wait('order.completed', (e) => e.data.order_uuid === close.uuid);
    say(`POST /cards/{uuid}/close → ← #${initiated.event_id} card.close_initiated (stage 1: spending stops), ← #${closeDone.event_id} order.completed`);
    await ok(control.POST('/sandbox/cards/{uuid}/finish-close', { params: { path: { uuid: cardUuid } } }));
    const closed = await inbox.wait('card.closed', (e) => e.data.card_uuid === cardUuid);
    check(closed.data.refund_amount === afterTopup.card_balance, `refund ${closed.data.refund_amount} differs from the card balance ${afterTopup.card_balance}`);
    more(`POST /sandbox/cards/{uuid}/finish-close (stage 2, days later in production) → ← #${closed.event_id} card.closed: ${closed.data.refund_amount} ${closed.data.currency} back in the wallet`);
    const endWallet = (await client.wallet.get()).wallets.find((w) => w.currency === startWallet.currency);
    check(endWallet !== undefined, 'the wallet disappeared');
    more(`GET /wallet → ${endWallet.currency} balance ${endWallet.balance} (available ${endWallet.available}, held ${endWallet.held_balance})`);

    // ---- The wallet ledger: every leg that touched the wallet, oldest first, with the balance after it ----
    const entries: LedgerEntry[] = [];
    for await (const entry of client.ledger.list({ per_page: 100 })) entries.push(entry);
    entries.sort((a, b) => a.id - b.id);
    const walletLegs = entries.filter((e) => e.currency === endWallet.currency && e.account_code?.startsWith('wallet.'));
    say(`Wallet ledger (GET /transactions: ${entries.length} double-entry legs, the ${walletLegs.length} on the wallet shown):`);
    more(`${pad('created_at', 24)}  ${pad('reason_code', 18)} ${pad('account', 16)} ${pad('direction', 9)} ${money('amount', 9)}  ${money('balance after', 13)}`);
    // The API has no balance column: it is summed here (credit in, debit out) and shown once per movement
    // (a hold moves money from available to held inside the wallet: two legs, one balance).
    let balance = Decimal.parse('0');
    walletLegs.forEach((e, i) => {
      balance = e.direction === 'credit' ? balance.add(Decimal.parse(e.amount)) : balance.sub(Decimal.parse(e.amount));
      const endOfMovement = walletLegs[i + 1]?.txn_group_id !== e.txn_group_id;
      more(`${pad(e.created_at, 24)}  ${pad(e.reason_code, 18)} ${pad(e.account_code ?? '', 16)} ${pad(e.direction, 9)} ${money(e.amount, 9)}  ${money(endOfMovement ? balance.toFixed(2) : '', 13)}`);
    });
    check(balance.toFixed(2) === endWallet.balance, `the ledger adds up to ${balance.toFixed(2)}, the wallet says ${endWallet.balance}`);

    // ---- Every webhook was delivered at the first attempt and handled without error ----
    const { data: deliveries } = await ok(control.GET('/sandbox/webhook-deliveries'));
    const undelivered = deliveries.filter((d) => d.status !== 'succeeded');
    check(undelivered.length === 0, `${undelivered.length} webhook deliveries did not succeed: ${undelivered.map((d) => `${d.event} ${d.status}`).join(', ')}`);
    check(handlerErrors.length === 0, `errors while handling webhooks: ${handlerErrors.map(String).join('; ')}`);
    check(deliveries.length === inbox.events.length, `${deliveries.length} deliveries but ${inbox.events.length} events handled`);
    const ms = Date.now() - started;
    print(`Done in ${(ms / 1000).toFixed(1)} s: ${inbox.events.length} webhooks received, signatures verified, all acknowledged.`);
    return { webhooks: inbox.events.length, cardUuid, walletBalance: endWallet.balance, ms };
  } catch (error) {
    if (step > 0 && !(error instanceof DemoError)) print(`    (failed after step ${step})`);
    throw error;
  } finally {
    receiverServer.closeAllConnections();
    await new Promise<void>((resolve) => receiverServer.close(() => resolve()));
    await sandbox?.close();
  }
}

const EVENT_SUFFIX: Partial<Record<CardTransaction['type'], string>> = { authorization: 'authorized', capture: 'captured', reversal: 'reversed', refund: 'refunded', decline: 'declined' };

/** The amount a bill shows, per the display rules of contract 2.6. */
function shownAmount(bill: ConsumptionBill): string {
  if (bill.status === 'authorized') return bill.authorized_amount ?? bill.amount;
  if (bill.status === 'settled' || bill.status === 'refunded') return bill.settled_amount ?? bill.amount;
  return bill.amount;
}

function billNote(bill: ConsumptionBill): string {
  if (bill.kind === 'decline') return `${bill.merchant_amount} ${bill.merchant_currency} attempted, ${bill.decline_reason}`;
  const fx = bill.fx_rate !== null ? `${bill.merchant_amount} ${bill.merchant_currency} charged; ` : '';
  const lines = bill.lines.map((l) => l.type).join(' + ');
  if (bill.status === 'authorized' && Decimal.parse(bill.amount).isZero()) return `card check (${lines})`;
  return `${fx}${lines}`;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  // A watchdog: whatever hangs, the demo ends.
  const watchdog = setTimeout(() => {
    console.error(`demo failed: it did not finish within ${WATCHDOG_MS / 60_000} minutes`);
    process.exit(1);
  }, WATCHDOG_MS);
  watchdog.unref();
  console.log('Card Issuing API: sandbox demo');
  runDemo().then(
    () => {
      process.exitCode = 0;
    },
    (error: unknown) => {
      // An API error says what the server answered; anything else unexpected also shows where it happened.
      const { status, code } = error as { status?: unknown; code?: unknown };
      const http = typeof status === 'number' ? ` (HTTP ${status}${typeof code === 'string' ? ` ${code}` : ''})` : '';
      console.error(`demo failed${http}: ${error instanceof Error ? error.message : String(error)}`);
      if (!(error instanceof DemoError) && http === '' && error instanceof Error && error.stack) console.error(error.stack.split('\n').slice(1, 4).join('\n'));
      process.exitCode = 1;
    },
  );
}
