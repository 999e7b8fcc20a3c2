/**
 * How `gen-card-api trigger <event>` produces each webhook event: the real way, through the public API and the
 * sandbox control API, so the event arrives with real ids and the state behind it is consistent (a capture has
 * its authorization, a closed card its close order). Recipes are code keyed by event code; the event codes
 * themselves are the spec's, and `recipes.test.ts` fails when the spec has an event without a recipe here or a
 * recipe names an event the spec lacks. Every request a recipe makes is checked against its operation first.
 */
import { generateKeyPair } from 'node:crypto';
import { promisify } from 'node:util';
import { waitForOrder, type SandboxApi } from './api.js';
import { CliError } from './errors.js';

type Json = Record<string, any>;

/** What a recipe is given. */
export interface RecipeContext {
  api: SandboxApi;
  /** `--card <uuid>`: the card to act on instead of a new one. */
  card: string | undefined;
  /** `--origin`: who acts, for a recipe with `origins`. */
  origin?: string | undefined;
  /** A note on stdout, between the call lines. */
  note(line: string): void;
}

/** What a recipe made happen, so that `trigger` can find the event in the delivery log. */
export interface Produced {
  /** Whether a delivery's `data` is the event this run produced (not an earlier one of the same code). */
  matches(data: Json): boolean;
  /** Runs after the event was recorded (or at once when no endpoint subscribes to it). */
  cleanup?: () => Promise<void>;
}

/** One recipe. */
export interface Recipe {
  /** `true` when `--card` applies; otherwise why it cannot. */
  card: true | string;
  /** One line: what the recipe does. */
  summary: string;
  /** The actors `--origin` may name, the first the default; absent when the event has one cause. */
  origins?: readonly string[];
  run(ctx: RecipeContext): Promise<Produced>;
}

/** Amounts recipes use; every product of the catalogue takes them, and each is checked against the spec on the way. */
const PURCHASE = '25.00';
const PENALTY = '5.00';
const INITIAL_TOPUP = '100.00';
const DEPOSIT = '1000.00';
const MERCHANT = { raw_name: 'GEN-CARD-API TRIGGER', mcc: '5734', country: 'US' };

/** Compares two non-negative decimal strings exactly (money is never a float). */
export function compareDecimal(a: string, b: string): number {
  const [ai = '0', af = ''] = a.split('.');
  const [bi = '0', bf = ''] = b.split('.');
  const width = Math.max(af.length, bf.length);
  const x = BigInt(ai + af.padEnd(width, '0'));
  const y = BigInt(bi + bf.padEnd(width, '0'));
  return x < y ? -1 : x > y ? 1 : 0;
}

const maxDecimal = (a: string, b: string): string => (compareDecimal(a, b) >= 0 ? a : b);

async function products(ctx: RecipeContext): Promise<Json[]> {
  const { body } = await ctx.api.call('listCardProducts');
  return body.data as Json[];
}

/** A product the workspace may issue, in its base currency when there is one. */
function pickProduct(list: Json[]): Json {
  const product = list.find((p) => p.available === true && p.currency_match === true) ?? list.find((p) => p.available === true);
  if (!product) throw new CliError('the workspace may issue none of the card products (no product is available)', 'use a workspace subscribed to a product (the sandbox default workspace is)');
  return product;
}

/**
 * Issues a card and waits for its order. A wallet too short for the hold (402) is funded first with a deposit
 * through the control API, as money arriving from outside would.
 */
export async function issueCard(ctx: RecipeContext): Promise<{ card: string | null; order: Json }> {
  const product = pickProduct(await products(ctx));
  const body = {
    card_product_id: product.id,
    initial_topup_amount: maxDecimal(String(product.min_initial_topup_amount ?? '0'), INITIAL_TOPUP),
    cardholder_first_name: 'Ada',
    cardholder_last_name: 'Lovelace',
  };
  let created = await ctx.api.call('createCard', { body }, { allow: [402] });
  if (created.status === 402) {
    ctx.note(`  the wallet cannot cover the hold: depositing ${DEPOSIT} through the control API`);
    await ctx.api.call('createDeposit', { body: { amount: DEPOSIT, description: 'gen-card-api trigger: funds for a card' } });
    created = await ctx.api.call('createCard', { body });
  }
  const order = await waitForOrder(ctx.api, String(created.body.data.uuid));
  return { card: (order.related_card_uuid as string | null | undefined) ?? null, order };
}

/** `--card`, or a new active card. */
async function cardFor(ctx: RecipeContext): Promise<string> {
  if (ctx.card !== undefined) return ctx.card;
  const { card, order } = await issueCard(ctx);
  if (order.status !== 'completed' || card === null) throw new CliError(`the card could not be issued: order ${String(order.uuid)} ${String(order.status)} (${String(order.failure_reason)})`, 'a forced failure may be armed (POST /sandbox/forced-failures): run trigger again');
  return card;
}

async function getCard(ctx: RecipeContext, card: string): Promise<Json> {
  return (await ctx.api.call('getCard', { path: { uuid: card } })).body.data as Json;
}

/** A purchase authorization on the card; a decline (frozen, closing, short of funds) is an error, not the event asked for. */
async function authorize(ctx: RecipeContext, card: string): Promise<Json> {
  const row = (await ctx.api.call('simulateAuthorization', { path: { uuid: card }, body: { amount: PURCHASE, merchant: MERCHANT } })).body.data as Json;
  if (row.decline_reason !== null && row.decline_reason !== undefined) {
    throw new CliError(`the card declined the authorization of ${PURCHASE} (${String(row.decline_reason)}) instead of holding it`, 'top the card up or unfreeze it, or leave out --card to use a new card');
  }
  return row;
}

/** A step on a purchase (capture, reversal, refund, chargeback), by its supplier_txn_id. */
async function onPurchase(ctx: RecipeContext, operationId: string, row: Json): Promise<Json> {
  return (await ctx.api.call(operationId, { path: { supplier_txn_id: row.supplier_txn_id } })).body.data as Json;
}

/** A card write (freeze, unfreeze, close) and its order, which must complete. */
async function cardWrite(ctx: RecipeContext, operationId: string, card: string): Promise<Json> {
  const { body } = await ctx.api.call(operationId, { path: { uuid: card }, body: { reason: 'gen-card-api trigger' } });
  const order = await waitForOrder(ctx.api, String(body.data.uuid));
  if (order.status !== 'completed') throw new CliError(`${operationId}: order ${String(order.uuid)} ${String(order.status)} (${String(order.failure_reason)})`);
  return order;
}

/** A top-up of the smallest amount the card's product allows. */
async function topUp(ctx: RecipeContext, card: string): Promise<Json> {
  const detail = await getCard(ctx, card);
  const product = (await products(ctx)).find((p) => p.id === detail.card_product_id);
  const amount = maxDecimal(String(product?.min_topup_amount ?? '0'), '10.00');
  const { body } = await ctx.api.call('topupCard', { path: { uuid: card }, body: { amount } });
  return waitForOrder(ctx.api, String(body.data.uuid));
}

const transaction = (row: Json) => (data: Json) => data.transaction?.uuid === row.uuid;
const ofCard = (card: string) => (data: Json) => data.card_uuid === card;
const ofOrder = (order: Json) => (data: Json) => data.order_uuid === order.uuid;

/** Close stage 2 comes by itself after the sandbox's close delay (1 s by default); this long, then it is run now. */
const CLOSE_WAIT_MS = 3_000;

export const RECIPES: Readonly<Record<string, Recipe>> = {
  'order.completed': {
    card: true,
    summary: 'issues a card (with --card: tops it up) and waits for the order',
    async run(ctx) {
      const order = ctx.card === undefined ? (await issueCard(ctx)).order : await topUp(ctx, ctx.card);
      if (order.status !== 'completed') throw new CliError(`order ${String(order.uuid)} ended ${String(order.status)} (${String(order.failure_reason)})`, 'a forced failure was armed: run trigger again');
      return { matches: ofOrder(order) };
    },
  },
  'order.failed': {
    card: true,
    summary: 'arms a forced failure, then issues a card (with --card: tops it up); the order fails and its hold is released',
    async run(ctx) {
      await ctx.api.call('failNextOrder', { body: { failure_reason: 'business4xx', ...(ctx.card === undefined ? {} : { card_uuid: ctx.card }) } });
      const order = ctx.card === undefined ? (await issueCard(ctx)).order : await topUp(ctx, ctx.card);
      if (order.status !== 'failed') throw new CliError(`order ${String(order.uuid)} ended ${String(order.status)}, not failed: another order took the forced failure`, 'run trigger again');
      return { matches: ofOrder(order) };
    },
  },
  'card.issued.secrets': {
    card: 'card.issued.secrets is pushed once, when a card is issued: it cannot reuse --card',
    summary: 'issues a card; without an RSA public key on the workspace, uploads a throwaway one for this card and removes it after',
    async run(ctx) {
      const key = (await ctx.api.call('getPublicKey')).body.data as Json | null;
      let cleanup: (() => Promise<void>) | undefined;
      if (key === null) {
        const { publicKey } = await promisify(generateKeyPair)('rsa', { modulusLength: 2048 });
        const uploaded = (await ctx.api.call('setPublicKey', { body: { public_key_pem: publicKey.export({ type: 'spki', format: 'pem' }).toString() } })).body.data as Json;
        ctx.note(`  the workspace had no RSA public key: uploaded a throwaway one (fingerprint ${String(uploaded.key_fingerprint)}); its private key is not kept, so secrets_jwe cannot be decrypted (upload yours: gen-card-api sandbox --rsa-public-key)`);
        cleanup = async () => {
          await ctx.api.call('removePublicKey');
        };
      }
      const { card, order } = await issueCard(ctx);
      if (card === null) {
        await cleanup?.();
        throw new CliError(`the card could not be issued: order ${String(order.uuid)} ${String(order.status)}`);
      }
      return { matches: ofCard(card), ...(cleanup ? { cleanup } : {}) };
    },
  },
  'card.transaction.authorized': {
    card: true,
    summary: `authorizes a ${PURCHASE} purchase (a hold)`,
    async run(ctx) {
      return { matches: transaction(await authorize(ctx, await cardFor(ctx))) };
    },
  },
  'card.transaction.captured': {
    card: true,
    summary: `authorizes a ${PURCHASE} purchase and captures it`,
    async run(ctx) {
      return { matches: transaction(await onPurchase(ctx, 'simulateCapture', await authorize(ctx, await cardFor(ctx)))) };
    },
  },
  'card.transaction.reversed': {
    card: true,
    summary: `authorizes a ${PURCHASE} purchase and reverses the hold`,
    async run(ctx) {
      return { matches: transaction(await onPurchase(ctx, 'simulateReversal', await authorize(ctx, await cardFor(ctx)))) };
    },
  },
  'card.transaction.declined': {
    card: true,
    summary: 'simulates a declined authorization (insufficient_funds)',
    async run(ctx) {
      const card = await cardFor(ctx);
      const row = (await ctx.api.call('simulateDecline', { path: { uuid: card }, body: { merchant_amount: '5000.00', reason: 'insufficient_funds', merchant: MERCHANT } })).body.data as Json;
      return { matches: transaction(row) };
    },
  },
  'card.transaction.refunded': {
    card: true,
    summary: `authorizes and captures a ${PURCHASE} purchase, then the merchant refunds it`,
    async run(ctx) {
      const row = await authorize(ctx, await cardFor(ctx));
      await onPurchase(ctx, 'simulateCapture', row);
      return { matches: transaction(await onPurchase(ctx, 'simulateRefund', row)) };
    },
  },
  'card.transaction.chargeback_opened': {
    card: true,
    summary: `authorizes and captures a ${PURCHASE} purchase, then the cardholder disputes it`,
    async run(ctx) {
      const row = await authorize(ctx, await cardFor(ctx));
      await onPurchase(ctx, 'simulateCapture', row);
      return { matches: transaction(await onPurchase(ctx, 'simulateChargeback', row)) };
    },
  },
  'card.frozen': {
    card: true,
    summary: 'freezes the card: a workspace freeze order, or with --origin platform_risk or issuer a unilateral freeze through the control API',
    // D9: the three actors of card.frozen's origin.
    origins: ['workspace', 'platform_risk', 'issuer'],
    async run(ctx) {
      const card = await cardFor(ctx);
      const origin = ctx.origin ?? 'workspace';
      if (origin === 'workspace') await cardWrite(ctx, 'freezeCard', card);
      else await ctx.api.call('riskFreezeCard', { path: { uuid: card }, body: { origin, reason: 'gen-card-api trigger' } });
      return { matches: (data) => data.card_uuid === card && data.origin === origin };
    },
  },
  'card.unfrozen': {
    card: true,
    summary: 'freezes the card (unless --card is frozen already), then unfreezes it',
    async run(ctx) {
      const card = await cardFor(ctx);
      if (ctx.card === undefined || (await getCard(ctx, card)).status !== 'frozen') await cardWrite(ctx, 'freezeCard', card);
      await cardWrite(ctx, 'unfreezeCard', card);
      return { matches: ofCard(card) };
    },
  },
  'card.close_initiated': {
    card: true,
    summary: 'closes the card: stage 1 (spend stops; the refund follows with card.closed)',
    async run(ctx) {
      const card = await cardFor(ctx);
      await cardWrite(ctx, 'closeCard', card);
      return { matches: ofCard(card) };
    },
  },
  'card.closed': {
    card: true,
    summary: 'closes the card in two stages: the close order, then stage 2 (by itself after the close delay, else run now)',
    async run(ctx) {
      const card = await cardFor(ctx);
      await cardWrite(ctx, 'closeCard', card);
      const deadline = Date.now() + CLOSE_WAIT_MS;
      let status = '';
      for (let delay = 100; Date.now() < deadline; delay = Math.min(delay * 2, 500)) {
        status = String((await ctx.api.call('getCard', { path: { uuid: card } }, { quiet: true })).body.data.status);
        if (status === 'closed') break;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
      if (status === 'closed') ctx.note('  close stage 2 ran by itself after the sandbox\'s close delay');
      else {
        ctx.note(`  close stage 2 has not come within ${CLOSE_WAIT_MS / 1000} s (this sandbox runs a longer close delay, or none): running it now`);
        await ctx.api.call('finishClose', { path: { uuid: card } });
      }
      return { matches: ofCard(card) };
    },
  },
  'card.risk.penalty_applied': {
    card: true,
    summary: `applies a ${PENALTY} risk penalty to the card (a confirmed-fraud ruling)`,
    async run(ctx) {
      const card = await cardFor(ctx);
      await ctx.api.call('applyRiskPenalty', { path: { uuid: card }, body: { amount: PENALTY, description: 'gen-card-api trigger' } });
      return { matches: ofCard(card) };
    },
  },
};

/** Events of the spec without a recipe, and recipes for events the spec lacks: both empty when trigger covers the spec. */
export function recipeCoverage(events: readonly string[], recipes: Readonly<Record<string, Recipe>> = RECIPES): { missing: string[]; extra: string[] } {
  return { missing: events.filter((e) => !(e in recipes)), extra: Object.keys(recipes).filter((e) => !events.includes(e)) };
}
