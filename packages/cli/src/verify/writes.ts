/**
 * The write flow (`--allow-writes`): the contract's typical flow with the smallest amounts the products allow.
 * Issue a card, replay the key, reuse the key with another body, wait for the order, top up, freeze, freeze
 * again, unfreeze, close, wait for close stage 2. Every write sends its own `X-Idempotency-Key`, named in the
 * evidence. Operations are looked up by operationId in the spec.
 */
import { randomUUID } from 'node:crypto';
import { answered, evidenceOf, hasCode, type Exchange } from './http.js';
import { sleep, type Json, type VerifyContext } from './context.js';

const SCALE = 8;

/** A decimal string as an integer count of 10^-8 units (no float anywhere). */
export function toUnits(value: unknown): bigint | null {
  if (typeof value !== 'string') return null;
  const m = /^(-?)(\d+)(?:\.(\d{1,8}))?$/.exec(value);
  if (!m) return null;
  const units = BigInt(m[2]!) * 10n ** BigInt(SCALE) + BigInt((m[3] ?? '').padEnd(SCALE, '0') || '0');
  return m[1] === '-' ? -units : units;
}

export function fromUnits(units: bigint): string {
  const negative = units < 0n;
  const abs = negative ? -units : units;
  const int = abs / 10n ** BigInt(SCALE);
  const frac = (abs % 10n ** BigInt(SCALE)).toString().padStart(SCALE, '0').replace(/0+$/, '');
  return `${negative ? '-' : ''}${int}${frac ? `.${frac.padEnd(2, '0')}` : '.00'}`;
}

/** Rounds units half-up to `decimals` places. */
function roundHalfUp(units: bigint, decimals: number): bigint {
  const step = 10n ** BigInt(SCALE - decimals);
  const rest = units % step;
  return units - rest + (rest * 2n >= step ? step : 0n);
}

const sameAmount = (a: unknown, b: unknown): boolean => toUnits(a) !== null && toUnits(a) === toUnits(b);

/** One order the flow created, for the webhook checks. */
export interface FlowOrder {
  uuid: string;
  type: string;
  key: string;
  heldAmount: unknown;
  currency: unknown;
  /** Terminal status seen by polling, or null when it never ended. */
  finalStatus: string | null;
}

/** What the flow leaves for the webhook checks. */
export interface FlowResult {
  cardUuid: string | null;
  card: Json | null;
  orders: FlowOrder[];
  closeOrder: FlowOrder | null;
  closed: boolean;
  /** Set once the flow wrote something, so that webhook expectations apply. */
  started: boolean;
  /** The card's balance when it was closed: what close stage 2 refunds (`refund_amount` of `card.closed`). */
  closeBalance: string | null;
}

export interface WriteOptions {
  /** Polling interval of orders and of close stage 2, in ms (the contract suggests 2 to 5 s). */
  pollIntervalMs: number;
  /** Longest wait for an order to end, in ms. */
  orderTimeoutMs: number;
  /** Longest wait for close stage 2, in ms; after it the stage-2 check is skipped (the contract allows days). */
  closeTimeoutMs: number;
  /**
   * `card_uuid` of the `order.completed` of an order, when a webhook receiver runs: where the contract announces a
   * new card. Asked only when the order reads do not name it (`related_card_uuid` is optional, D29).
   */
  completedCard?: (orderUuid: string) => Promise<string | null>;
  /** Called once the card holds money (after the top-up): the ledger check of its account. */
  cardFunded?: (cardUuid: string) => Promise<void>;
  /** Why no card could come from order.completed when that is known (a webhook check failed): the cause's check id. */
  webhookCause?: () => string | null;
}

const TERMINAL = ['completed', 'failed'];

/** Runs the write flow; every step records its own check, and a step that cannot run skips the rest with the reason. */
export async function runWriteFlow(ctx: VerifyContext, options: WriteOptions): Promise<FlowResult> {
  const { probe, checks } = ctx;
  const run = randomUUID();
  const key = (step: string) => `verify-${run}-${step}`;
  const result: FlowResult = { cardUuid: null, card: null, orders: [], closeOrder: null, closed: false, started: false, closeBalance: null };
  const flowChecks = ['write.issue', 'write.issue-completes', 'write.idempotency-replay', 'write.idempotency-conflict', 'write.topup', 'write.freeze', 'write.freeze-again', 'write.unfreeze', 'write.close-stage-1', 'write.close-stage-2'];
  const skipRest = (reason: string) => flowChecks.forEach((id) => checks.skip(id, reason));
  /**
   * A replay that made another order also moves the wallet and puts a newer order (and card) first in the lists:
   * the checks that read those are then not judged, their cause is the idempotency check's.
   */
  const replayCascade = (id: string, what: string): boolean => {
    const cause = ['write.idempotency-replay', 'state.idempotent-replays'].find((c) => checks.failed(c));
    if (cause) checks.blocked(id, cause, `${what}: a replay made another order`);
    return cause !== undefined;
  };

  /** Polls an order until it ends. */
  const pollOrder = async (uuid: string): Promise<{ order: Json | null; last: Exchange | null }> => {
    const deadline = Date.now() + options.orderTimeoutMs;
    let last: Exchange | null = null;
    for (;;) {
      last = await probe.call('getOrder', { params: { uuid } });
      const order = last.body?.data;
      if (last.status === 200 && TERMINAL.includes(order?.status)) return { order, last };
      // An order the server does not know will not end: waiting on it says nothing more.
      if (last.status === 404) return { order: null, last };
      if (Date.now() >= deadline) return { order: null, last };
      await sleep(options.pollIntervalMs, ctx.signal);
    }
  };
  const getCard = async (uuid: string) => probe.call('getCard', { params: { uuid } });
  /** The wallet of one currency: balance and held_balance in units, or null when it cannot be read. */
  const wallet = async (currency: unknown): Promise<{ balance: bigint; held: bigint; ev: string } | null> => {
    const x = await probe.call('getWallet');
    const w = ((x.body?.data?.wallets ?? []) as Json[]).find((e) => e?.currency === currency);
    const balance = toUnits(w?.balance);
    const held = toUnits(w?.held_balance);
    return balance === null || held === null ? null : { balance, held, ev: evidenceOf(x) };
  };
  /**
   * money.order-hold around one money-moving order: the wallet before it was accepted, right after (while the order
   * is still pending, its hold must show), and once it completed (the wallet paid exactly held_amount).
   */
  const holdWatch = async (currency: unknown) => {
    const w0 = await wallet(currency);
    return {
      accepted: async (order: FlowOrder) => {
        const w1 = await wallet(currency);
        const o = await probe.call('getOrder', { params: { uuid: order.uuid } });
        const held = toUnits(order.heldAmount);
        if (!w0 || !w1 || held === null || TERMINAL.includes(o.body?.data?.status)) return;
        if (w1.held - w0.held < held && replayCascade('money.order-hold', `the hold of ${order.uuid}`)) return;
        checks.expect('money.order-hold', w1.held - w0.held < held ? [`${order.type} ${order.uuid} is ${String(o.body?.data?.status)} with held_amount ${String(order.heldAmount)}, but the wallet's held_balance rose by ${fromUnits(w1.held - w0.held)}`] : [], `${order.type} ${order.uuid}: pending, its hold shows in the wallet`, [w1.ev, evidenceOf(o)]);
      },
      completed: async (order: FlowOrder) => {
        const w2 = await wallet(currency);
        const held = toUnits(order.heldAmount);
        if (!w0 || !w2 || held === null || order.finalStatus !== 'completed') return;
        const problems: string[] = [];
        if (w0.balance - w2.balance !== held) problems.push(`${order.type} ${order.uuid} completed with held_amount ${String(order.heldAmount)}, but the wallet balance went down by ${fromUnits(w0.balance - w2.balance)}`);
        if (w2.held !== w0.held) problems.push(`${order.type} ${order.uuid} completed, but the wallet's held_balance is ${fromUnits(w2.held)}, it was ${fromUnits(w0.held)} before the order`);
        if (problems.length > 0 && replayCascade('money.order-hold', `the wallet after ${order.uuid}`)) return;
        checks.expect('money.order-hold', problems, `${order.type} ${order.uuid}: the wallet paid held_amount`, [w2.ev]);
      },
    };
  };
  /** state.created-readable: an accepted order is readable at once, and first in its list (newest first). */
  const readable = async (order: FlowOrder) => {
    const x = await probe.call('getOrder', { params: { uuid: order.uuid } });
    const list = await probe.call('listOrders', { query: { page: 1, per_page: 1 } });
    const first = list.body?.data?.[0]?.uuid;
    const problems: string[] = [];
    if (x.status !== 200 || x.body?.data?.uuid !== order.uuid) problems.push(`GET the accepted order ${order.uuid} at once: ${answered(x)}${x.status === 200 ? ` with uuid ${String(x.body?.data?.uuid)}` : ''}`);
    if (first !== order.uuid && !replayCascade('state.created-readable', `the newest order of ${answered(list)}`)) problems.push(`the newest order of ${answered(list)} is ${JSON.stringify(first ?? null)}, not the order just accepted ${order.uuid}`);
    checks.expect('state.created-readable', problems, `${order.type} ${order.uuid}: readable and first in its list`, [evidenceOf(x), evidenceOf(list)]);
  };
  /** state.idempotent-replays: the write sent again with its key and body returns the same order. */
  const replayWrite = async (operationId: string, order: FlowOrder, body: unknown, params: Record<string, string>) => {
    const x = await probe.call(operationId, { params, ...(body === undefined ? {} : { body }), idempotencyKey: order.key });
    const same = (x.status === 202 || x.status === 200) && x.body?.data?.uuid === order.uuid;
    checks.expect('state.idempotent-replays', same ? [] : [`replaying ${order.type} with ${order.key}: ${answered(x)} with order ${JSON.stringify(x.body?.data?.uuid ?? null)}, expected the same order ${order.uuid}`], `${order.type} replayed: same order ${order.uuid}`, [`X-Idempotency-Key ${order.key}`, evidenceOf(x)]);
  };

  /** Sends one card action, waits for its order; records the accepted order. */
  const write = async (operationId: string, step: string, expectedType: string, body: unknown, params: Record<string, string> = {}) => {
    const k = key(step);
    const x = await probe.call(operationId, { params, ...(body === undefined ? {} : { body }), idempotencyKey: k });
    result.started = true;
    const evidence = [`X-Idempotency-Key ${k}`, evidenceOf(x)];
    const order = x.body?.data as Json | undefined;
    const problems: string[] = [];
    if (x.status !== 202) problems.push(`${x.method} ${x.target}: expected 202, got ${x.status}${x.body?.error?.code ? ` ${x.body.error.code}` : ''}`);
    else if (order?.type !== expectedType) problems.push(`${x.method} ${x.target}: order type ${JSON.stringify(order?.type)}, expected ${expectedType}`);
    let flowOrder: FlowOrder | null = null;
    if (x.status === 202 && typeof order?.uuid === 'string') {
      flowOrder = { uuid: order.uuid, type: String(order.type), key: k, heldAmount: order.held_amount, currency: order.currency, finalStatus: null };
      result.orders.push(flowOrder);
    }
    return { x, order, flowOrder, problems, evidence, key: k };
  };

  const awaitOrder = async (flowOrder: FlowOrder, problems: string[], evidence: string[]) => {
    const { order, last } = await pollOrder(flowOrder.uuid);
    if (last) evidence.push(evidenceOf(last));
    flowOrder.finalStatus = order?.status ?? null;
    if (!order) problems.push(`order ${flowOrder.uuid} did not end within ${options.orderTimeoutMs} ms`);
    else if (order.status !== 'completed') problems.push(`order ${flowOrder.uuid} ended ${order.status} (${order.failure_reason ?? 'no reason'})`);
    return order;
  };

  // The product: available, smallest initial hold.
  const products = await probe.call('listCardProducts');
  const available = ((products.body?.data ?? []) as Json[]).filter((p) => p?.available === true && toUnits(p.min_initial_topup_amount) !== null);
  const hold = (p: Json) => (toUnits(p.min_initial_topup_amount) ?? 0n) + (toUnits(p.fees?.card_issue_fixed) ?? 0n);
  const product = available.sort((a, b) => (hold(a) < hold(b) ? -1 : hold(a) > hold(b) ? 1 : 0))[0];
  if (!product) {
    checks.fail('write.issue', `no available card product to issue (GET card products answered ${products.status})`, [evidenceOf(products)]);
    skipRest('no card could be issued');
    return result;
  }

  // Issue.
  const issueBody = { card_product_id: product.id, initial_topup_amount: product.min_initial_topup_amount, cardholder_first_name: 'Verify', cardholder_last_name: `Run ${run.slice(0, 8)}` };
  const issueHold = await holdWatch(product.currency);
  const issue = await write('createCard', 'issue', 'issue_card', issueBody);
  if (issue.flowOrder) {
    await issueHold.accepted(issue.flowOrder);
    await readable(issue.flowOrder);
  }
  if (issue.x.status === 202) {
    const expected = fromUnits(hold(product));
    if (!sameAmount(issue.order?.held_amount, expected)) issue.problems.push(`held_amount ${JSON.stringify(issue.order?.held_amount)}, expected ${expected} (initial top-up + card_issue_fixed, D21)`);
    if (issue.order?.currency !== product.currency) issue.problems.push(`currency ${JSON.stringify(issue.order?.currency)}, expected the product's ${product.currency}`);
  }
  checks.expect('write.issue', issue.problems, `issue_card order ${issue.order?.uuid ?? '?'} (product ${product.id}, ${product.min_initial_topup_amount} ${product.currency})`, issue.evidence);
  if (!issue.flowOrder) {
    skipRest('the issue request was not accepted');
    return result;
  }

  // Idempotency: the same key and body, then the same key with another body.
  const replay = await probe.call('createCard', { body: issueBody, idempotencyKey: issue.key });
  checks.expect(
    'write.idempotency-replay',
    replay.status === 202 && replay.body?.data?.uuid === issue.flowOrder.uuid ? [] : [`replaying ${issue.key} answered ${replay.status} with order ${JSON.stringify(replay.body?.data?.uuid ?? null)}, expected 202 with ${issue.flowOrder.uuid}`],
    `same order ${issue.flowOrder.uuid}`,
    [`X-Idempotency-Key ${issue.key}`, evidenceOf(replay)],
  );
  const conflict = await probe.call('createCard', { body: { ...issueBody, cardholder_last_name: `${issueBody.cardholder_last_name} other` }, idempotencyKey: issue.key });
  checks.expect(
    'write.idempotency-conflict',
    conflict.status === 409 && hasCode(checks, 'write.idempotency-conflict', conflict, 'idempotency.key_reused') ? [] : [`reusing ${issue.key} with another body answered ${conflict.status} ${JSON.stringify(conflict.body?.error?.code ?? null)}, expected 409 idempotency.key_reused`],
    '409 idempotency.key_reused',
    [`X-Idempotency-Key ${issue.key}`, evidenceOf(conflict)],
  );

  // Wait for the issue order (polling; the webhook side is checked by webhook.order-completed).
  const issued = await awaitOrder(issue.flowOrder, [], issue.evidence);
  await issueHold.completed(issue.flowOrder);
  const completeProblems: string[] = [];
  if (!issued || issued.status !== 'completed') completeProblems.push(`order ${issue.flowOrder.uuid} ${issued ? `ended ${issued.status}` : 'did not end in time'}`);
  else {
    // D29: the order need not name its card; the 202 may, and order.completed does.
    const named = [issued.related_card_uuid, issue.order?.related_card_uuid].find((u): u is string => typeof u === 'string');
    const cardUuid = named ?? (await options.completedCard?.(issue.flowOrder.uuid)) ?? null;
    const cause = cardUuid === null ? (options.webhookCause?.() ?? null) : null;
    if (cardUuid === null && cause !== null) checks.blocked('write.issue-completes', cause, `order ${issue.flowOrder.uuid} names no card, and its order.completed did not verify (${cause} failed)`);
    else if (cardUuid === null) completeProblems.push(`order ${issue.flowOrder.uuid} names no card (no related_card_uuid${options.completedCard ? ', and no order.completed with card_uuid arrived' : '; run with a webhook receiver to take it from order.completed'})`);
    else {
      result.cardUuid = cardUuid;
      const card = await getCard(cardUuid);
      issue.evidence.push(evidenceOf(card));
      if (card.status !== 200) completeProblems.push(`GET the new card answered ${card.status}`);
      else {
        result.card = card.body?.data ?? null;
        if (result.card?.status !== 'active') completeProblems.push(`the new card is ${result.card?.status}, expected active (D17)`);
        if (toUnits(result.card?.card_balance) !== toUnits(issueBody.initial_topup_amount)) completeProblems.push(`the new card's card_balance is ${JSON.stringify(result.card?.card_balance)}, expected the initial top-up ${issueBody.initial_topup_amount} (D21)`);
        const cards = await probe.call('listCards', { query: { page: 1, per_page: 1 } });
        const first = cards.body?.data?.[0]?.uuid;
        if (first === cardUuid || !replayCascade('state.created-readable', `the newest card of ${answered(cards)}`)) checks.expect('state.created-readable', first === cardUuid ? [] : [`the newest card of ${answered(cards)} is ${JSON.stringify(first ?? null)}, not the card just issued ${cardUuid}`], `card ${cardUuid}: readable and first in its list`, [evidenceOf(card), evidenceOf(cards)]);
      }
    }
  }
  if (completeProblems.length > 0 || result.cardUuid) checks.expect('write.issue-completes', completeProblems, `card ${result.cardUuid ?? '?'} active`, issue.evidence);
  if (!result.cardUuid || !result.card) {
    skipRest('no card was issued');
    return result;
  }
  const cardUuid = result.cardUuid;
  const params = { uuid: cardUuid };

  // Top-up.
  const before = result.card.card_balance;
  const topupHold = await holdWatch(product.currency);
  const topupBody = { amount: product.min_topup_amount };
  const topup = await write('topupCard', 'topup', 'topup_card', topupBody, params);
  if (topup.flowOrder) await topupHold.accepted(topup.flowOrder);
  if (topup.flowOrder) {
    const amount = toUnits(product.min_topup_amount) ?? 0n;
    const fee = (toUnits(product.fees?.topup_fixed) ?? 0n) + roundHalfUp((amount * (toUnits(product.fees?.topup_percent) ?? 0n)) / 10n ** BigInt(SCALE), 2);
    const expected = fromUnits(amount + fee);
    if (!sameAmount(topup.order?.held_amount, expected)) topup.problems.push(`held_amount ${JSON.stringify(topup.order?.held_amount)}, expected ${expected} (amount + topup_fixed + amount x topup_percent, D21)`);
    await awaitOrder(topup.flowOrder, topup.problems, topup.evidence);
    const after = await getCard(cardUuid);
    topup.evidence.push(evidenceOf(after));
    const credited = (toUnits(after.body?.data?.card_balance) ?? 0n) - (toUnits(before) ?? 0n);
    if (credited !== amount) topup.problems.push(`card_balance went from ${JSON.stringify(before)} to ${JSON.stringify(after.body?.data?.card_balance)}, expected +${product.min_topup_amount}`);
  }
  checks.expect('write.topup', topup.problems, `topup_card ${product.min_topup_amount} ${product.currency} credited`, topup.evidence);
  if (topup.flowOrder) {
    await topupHold.completed(topup.flowOrder);
    await options.cardFunded?.(cardUuid);
    const replayHold = await holdWatch(product.currency);
    await replayWrite('topupCard', topup.flowOrder, topupBody, params);
    // A replay moves no money: the wallet is where the top-up left it.
    await replayHold.completed({ ...topup.flowOrder, heldAmount: '0', type: 'replayed topup_card' });
  }

  /** A card action, its order and the card status after it. */
  /** `body` undefined sends none (the body of a card action is optional). */
  const action = async (checkId: string, operationId: string, step: string, type: string, statuses: string[], body: unknown) => {
    const a = await write(operationId, step, type, body, params);
    if (a.flowOrder) {
      await awaitOrder(a.flowOrder, a.problems, a.evidence);
      const card = await getCard(cardUuid);
      a.evidence.push(evidenceOf(card));
      if (!statuses.includes(card.body?.data?.status)) a.problems.push(`the card is ${JSON.stringify(card.body?.data?.status)} after ${type}, expected ${statuses.join(' or ')}`);
    }
    checks.expect(checkId, a.problems, `${type} order ${a.flowOrder?.uuid ?? '?'}; card ${statuses.join('/')}`, a.evidence);
    if (a.flowOrder) await replayWrite(operationId, a.flowOrder, body, params);
    return a;
  };

  // D33: a key names one request of the workspace; the issue's key sent to another endpoint is refused. An unfreeze
  // of an active card changes nothing even where a server scopes keys per endpoint (it answers 409 state_conflict).
  const elsewhere = await probe.call('unfreezeCard', { params, idempotencyKey: issue.key });
  checks.expect(
    'write.idempotency-conflict',
    elsewhere.status === 409 && hasCode(checks, 'write.idempotency-conflict', elsewhere, 'idempotency.key_reused') ? [] : [`the issue's key ${issue.key} sent to ${answered(elsewhere)}, expected 409 idempotency.key_reused (a key is the workspace's, not one endpoint's: D33)`],
    '409 idempotency.key_reused on another endpoint',
    [`X-Idempotency-Key ${issue.key}`, evidenceOf(elsewhere)],
  );

  /** state.after-close: every card write refused 409 card.state_conflict; the card still read and listed. */
  const afterClose = async (phase: string) => {
    const writes = ctx.spec.operations.filter((o) => o.method === 'POST' && ctx.spec.pathParameters(o).length === 1 && o.route.startsWith(`${ctx.spec.operation('getCard').route}/`));
    for (const op of writes) {
      const k = key(`${phase}-${op.operationId}`);
      const body = op.operationId === 'topupCard' ? topupBody : undefined;
      const x = await probe.call(op.operationId, { params, ...(body ? { body } : {}), idempotencyKey: k });
      checks.expect('state.after-close', x.status === 409 && hasCode(checks, 'state.after-close', x, 'card.state_conflict') ? [] : [`${op.method} ${op.route} on a ${phase} card: ${answered(x)}, expected 409 card.state_conflict`], `${phase}: ${op.operationId} refused 409`, [`X-Idempotency-Key ${k}`, evidenceOf(x)]);
      if (x.status === 202 && typeof x.body?.data?.uuid === 'string') await pollOrder(x.body.data.uuid);
    }
    const card = await getCard(cardUuid);
    const list = await probe.call('listCards', { query: { page: 1, per_page: Number(ctx.spec.queryParameter(ctx.spec.operation('listCards'), 'per_page')?.schema?.maximum ?? 100) } });
    const problems: string[] = [];
    if (card.status !== 200) problems.push(`GET a ${phase} card: ${answered(card)}, expected 200`);
    if (!((list.body?.data ?? []) as Json[]).some((c) => c?.uuid === cardUuid)) problems.push(`a ${phase} card is no longer listed by ${answered(list)}`);
    checks.expect('state.after-close', problems, `${phase}: the card is still read and listed`, [evidenceOf(card), evidenceOf(list)]);
  };

  // The body of a card action is optional: the freeze sends none.
  await action('write.freeze', 'freezeCard', 'freeze', 'freeze', ['frozen'], undefined);
  const k2 = key('freeze-again');
  const again = await probe.call('freezeCard', { params, body: { reason: 'gen-card-api verify freeze-again' }, idempotencyKey: k2 });
  checks.expect(
    'write.freeze-again',
    again.status === 409 && hasCode(checks, 'write.freeze-again', again, 'card.state_conflict') ? [] : [`a second freeze answered ${again.status} ${JSON.stringify(again.body?.error?.code ?? null)}, expected 409 card.state_conflict`],
    '409 card.state_conflict',
    [`X-Idempotency-Key ${k2}`, evidenceOf(again)],
  );
  if (again.status === 202 && typeof again.body?.data?.uuid === 'string') {
    // A server that accepted it: wait for that order, so the card is in a known state for what follows.
    await pollOrder(again.body.data.uuid);
  }
  await action('write.unfreeze', 'unfreezeCard', 'unfreeze', 'unfreeze', ['active'], { reason: null });
  const beforeClose = await getCard(cardUuid);
  result.closeBalance = typeof beforeClose.body?.data?.card_balance === 'string' ? beforeClose.body.data.card_balance : null;
  const closeWallet = await wallet(product.currency);

  // Close: stage 1 (the order completes, the card is closing), stage 2 (the card is closed).
  const close = await action('write.close-stage-1', 'closeCard', 'close', 'close_card', ['pending_close', 'closed'], { reason: 'gen-card-api verify close' });
  result.closeOrder = close.flowOrder;
  if (close.flowOrder) await afterClose('closing');
  if (!close.flowOrder) {
    checks.skip('write.close-stage-2', 'the close was not accepted');
    return result;
  }
  const deadline = Date.now() + options.closeTimeoutMs;
  for (;;) {
    const card = await getCard(cardUuid);
    if (card.body?.data?.status === 'closed') {
      result.closed = true;
      checks.pass('write.close-stage-2', `card ${cardUuid} closed`, [`X-Idempotency-Key ${close.key}`, evidenceOf(card)]);
      const after = await wallet(product.currency);
      const refund = toUnits(result.closeBalance);
      if (closeWallet && after && refund !== null) checks.expect('money.close-refund', after.balance - closeWallet.balance !== refund ? [`the card held ${String(result.closeBalance)} when closed, but the wallet balance went up by ${fromUnits(after.balance - closeWallet.balance)} at close stage 2`] : [], `close refund ${String(result.closeBalance)} back in the wallet`, [after.ev]);
      await afterClose('closed');
      break;
    }
    if (card.status !== 200 || !['pending_close'].includes(card.body?.data?.status)) {
      checks.fail('write.close-stage-2', `the closing card is ${JSON.stringify(card.body?.data?.status ?? card.status)}, expected pending_close then closed`, [evidenceOf(card)]);
      break;
    }
    if (Date.now() >= deadline) {
      checks.skip('write.close-stage-2', `stage 2 did not happen within --close-timeout ${options.closeTimeoutMs / 1000} s (the contract allows days); the card stays pending_close`);
      break;
    }
    await sleep(options.pollIntervalMs, ctx.signal);
  }
  return result;
}
