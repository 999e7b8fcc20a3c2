/**
 * The spec against a table written by hand from the contract (../shared/card-issuing-api.md). Anything
 * missing or misspelled fails with a message that names it.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadModel, type ApiModel } from '../../generators/model/index.js';

const SPEC = path.resolve(import.meta.dirname, '../../spec/openapi.yaml');

/** Contract section 4: method, path, ability (alternatives joined by `|`, '' = any valid token), success status. */
const ENDPOINTS: ReadonlyArray<readonly [string, string, string, number]> = [
  ['GET', '/ping', '', 200],
  ['GET', '/card-products', 'cards.read|cards.write', 200],
  ['GET', '/cards', 'cards.read', 200],
  ['POST', '/cards', 'cards.write', 202],
  ['GET', '/cards/{uuid}', 'cards.read', 200],
  ['GET', '/cards/{uuid}/consumption-bills', 'cards.read', 200],
  ['GET', '/cards/{uuid}/transactions', 'cards.read', 200],
  ['POST', '/cards/{uuid}/topup', 'cards.write', 202],
  ['POST', '/cards/{uuid}/freeze', 'cards.write', 202],
  ['POST', '/cards/{uuid}/unfreeze', 'cards.write', 202],
  ['POST', '/cards/{uuid}/close', 'cards.write', 202],
  ['GET', '/orders', 'orders.read', 200],
  ['GET', '/orders/{uuid}', 'orders.read', 200],
  ['GET', '/wallet', 'wallet.read', 200],
  ['GET', '/transactions', 'transactions.read', 200],
];

/** Paginated lists of section 4. */
const PAGINATED = ['/cards', '/cards/{uuid}/consumption-bills', '/cards/{uuid}/transactions', '/orders', '/transactions'];

const CARD_BASE = ['card_uuid', 'workspace_id', 'cardholder_type', 'pan_last4', 'status'];
const TRANSACTION_EVENT = ['card_uuid', 'pan_last4', 'transaction'];

/** Contract section 6.4: the 14 events and their data fields. */
const EVENTS: Record<string, string[]> = {
  'order.completed': ['order_uuid', 'type', 'held_amount', 'currency', 'card_uuid', 'completed_at'],
  'order.failed': ['order_uuid', 'type', 'card_uuid', 'failure_reason', 'failed_at'],
  'card.issued.secrets': ['card_uuid', 'secrets_jwe', 'key_fingerprint', 'card_id', 'card_last4', 'card_bin'],
  'card.transaction.authorized': TRANSACTION_EVENT,
  'card.transaction.captured': TRANSACTION_EVENT,
  'card.transaction.reversed': TRANSACTION_EVENT,
  'card.transaction.declined': TRANSACTION_EVENT,
  'card.transaction.refunded': TRANSACTION_EVENT,
  'card.transaction.chargeback_opened': TRANSACTION_EVENT,
  'card.frozen': [...CARD_BASE, 'origin', 'reason', 'frozen_at'],
  'card.unfrozen': [...CARD_BASE, 'reason', 'unfrozen_at'],
  'card.close_initiated': [...CARD_BASE, 'origin', 'reason', 'close_initiated_at'],
  'card.closed': [...CARD_BASE, 'refund_amount', 'currency', 'closed_at'],
  'card.risk.penalty_applied': [...CARD_BASE, 'penalty_amount', 'currency', 'balance_after'],
};

/** Contract sections 2.6 and 2.11 (and D9 for ActionOrigin): every value of every enumeration. */
const ENUMS: Record<string, string[]> = {
  CardStatus: ['pending_issue', 'active', 'frozen', 'pending_close', 'closed', 'issue_failed'],
  CardholderType: ['user', 'staff'],
  TransactionStatus: ['pending', 'posted', 'reversed', 'failed'],
  TransactionType: ['authorization', 'capture', 'refund', 'reversal', 'decline', 'chargeback_opened', 'chargeback_resolved'],
  DeclineReason: ['insufficient_funds', 'card_frozen', 'avs_mismatch', 'cvv_mismatch', 'risk_blocked', 'other'],
  OrderStatus: ['pending', 'processing', 'awaiting_platform', 'completed', 'failed'],
  OrderType: ['issue_card', 'topup_card', 'close_card', 'freeze', 'unfreeze'],
  OrderFailureReason: ['supplier5xx', 'timeout', 'network', 'signature', 'business4xx', 'not_found', 'preempted_by_risk', 'admin_refund_close', 'async_issue_failed'],
  LedgerReasonCode: [
    'card_issue_held', 'card_topup_held', 'held_capture', 'held_release', 'held_release_admin', 'card_issue_fee', 'card_topup_fee',
    'card_close_refund', 'usdt_deposit', 'usdt_deposit_fee', 'withdrawal_held', 'withdrawal_completed', 'withdrawal_canceled',
    'withdrawal_rejected', 'card_spend', 'card_spend_refund', 'card_spend_reversal', 'card_post_close_clawback', 'card_post_close_refund',
    'card_reconcile_adjustment', 'subscription_charge', 'risk_penalty', 'reversal',
  ],
  LedgerDirection: ['debit', 'credit'],
  ConsumptionBillKind: ['purchase', 'refund', 'decline', 'chargeback', 'other'],
  ConsumptionBillStatus: ['authorized', 'settled', 'reversed', 'expired', 'declined', 'refunded', 'chargeback_opened', 'chargeback_resolved'],
  Ability: ['cards.read', 'cards.write', 'orders.read', 'wallet.read', 'transactions.read'],
  ActionOrigin: ['workspace', 'platform_risk', 'issuer'],
};

/** Error codes the contract documents (section 7); ours for 409/422/429 come on top. */
const DOCUMENTED_ERROR_CODES = [
  'api.unauthenticated', 'api.workspace_inactive', 'api.ip_not_allowed', 'api.insufficient_ability',
  'wallet.insufficient_balance', 'card.not_found', 'order.not_found',
];

/** Resource fields of section 2 (the ones a typo would most likely hit). */
const RESOURCE_FIELDS: Record<string, string[]> = {
  Card: ['uuid', 'status', 'cardholder_type', 'cardholder_first_name', 'cardholder_last_name', 'masked_pan', 'pan_last4', 'pan_bin', 'currency', 'card_balance', 'card_product_id', 'issued_at', 'last_active_txn_at', 'created_at'],
  CardTransaction: ['uuid', 'type', 'status', 'amount', 'currency', 'merchant_amount', 'merchant_currency', 'fx_rate', 'merchant', 'auth_code', 'decline_reason', 'occurred_at', 'posted_at', 'created_at'],
  Order: ['uuid', 'type', 'status', 'related_card_uuid', 'held_amount', 'currency', 'created_at', 'failure_reason'],
  WalletBalance: ['currency', 'balance', 'held_balance', 'available', 'frozen_at', 'frozen_reason', 'last_reconciled_at'],
  LedgerEntry: ['id', 'txn_group_id', 'reason_code', 'direction', 'amount', 'currency', 'account_code', 'account_card_uuid', 'reference_type', 'reference_uuid', 'description', 'created_at'],
  ConsumptionBill: ['id', 'kind', 'status', 'amount', 'currency', 'authorized_amount', 'settled_amount', 'merchant_amount', 'merchant_currency', 'fx_rate', 'merchant', 'auth_code', 'decline_reason', 'occurred_at', 'settled_at', 'lines'],
};

/**
 * Fields of a section 2 table that the contract's own shape of a read leaves out, so a reader may not require
 * them: GET /orders lists its rows as "uuid, type, status, failure_reason, held_amount, currency, created_at",
 * without `related_card_uuid`, and GET /orders/{uuid} has "the same fields as a list row" (D29).
 */
const OPTIONAL_BY_CONTRACT: Record<string, string[]> = { Order: ['related_card_uuid'] };

let model: ApiModel;
beforeAll(async () => {
  model = await loadModel(SPEC);
});

function schema(name: string): Record<string, any> {
  const found = model.schemas.find((s) => s.name === name);
  if (!found) throw new Error(`schema ${name} is missing from components.schemas`);
  return found.schema;
}

describe('endpoints (contract section 4)', () => {
  it('has exactly the 15 operations of the contract', () => {
    const actual = model.operations.map((op) => `${op.method.toUpperCase()} ${op.path}`).sort();
    const expected = ENDPOINTS.map(([m, p]) => `${m} ${p}`).sort();
    expect(actual, 'operations in the spec vs the contract').toEqual(expected);
  });

  it.each(ENDPOINTS)('%s %s needs "%s" and answers %i', (method, route, ability, status) => {
    const op = model.operations.find((o) => o.method === method.toLowerCase() && o.path === route);
    expect(op, `${method} ${route} is missing`).toBeDefined();
    const alternatives = op!.abilities.map((a) => a.join('+')).sort().join('|');
    expect(alternatives, `${method} ${route}: required ability`).toBe(ability);
    expect(op!.success.status, `${method} ${route}: success status`).toBe(status);
    expect(op!.paginated, `${method} ${route}: paginated`).toBe(PAGINATED.includes(route) && method === 'GET');
    if (method === 'POST') {
      expect(op!.idempotent, `${method} ${route}: X-Idempotency-Key`).toBe(true);
      expect(op!.async, `${method} ${route}: 202 with an Order`).toBe(true);
    }
    if (op!.paginated) {
      const names = op!.queryParams.map((p) => p.name);
      expect(names, `${method} ${route}: page/per_page`).toEqual(expect.arrayContaining(['page', 'per_page']));
    }
    expect(op!.errors.map((e) => e.status), `${method} ${route}: 401`).toContain(401);
  });

  it('declares the documented error statuses on their routes', () => {
    const statuses = (m: string, p: string) => model.operations.find((o) => o.method === m && o.path === p)!.errors.map((e) => e.status);
    expect(statuses('post', '/cards')).toEqual(expect.arrayContaining([401, 402, 403, 422, 429]));
    expect(statuses('get', '/cards/{uuid}')).toEqual(expect.arrayContaining([401, 403, 404]));
    expect(statuses('post', '/cards/{uuid}/topup')).toEqual(expect.arrayContaining([404, 422]));
    for (const action of ['freeze', 'unfreeze', 'close']) {
      expect(statuses('post', `/cards/{uuid}/${action}`), action).toEqual(expect.arrayContaining([404, 409]));
    }
    expect(statuses('get', '/orders/{uuid}')).toContain(404);
  });

  it('documents the query parameters of every list', () => {
    const query = (p: string) => model.operations.find((o) => o.method === 'get' && o.path === p)!.queryParams.map((q) => q.name).sort();
    expect(query('/cards')).toEqual(['cardholder_type', 'page', 'per_page', 'search', 'status']);
    expect(query('/cards/{uuid}/consumption-bills')).toEqual(['from', 'page', 'per_page', 'to']);
    expect(query('/cards/{uuid}/transactions')).toEqual(['from', 'page', 'per_page', 'status', 'to', 'type']);
    expect(query('/orders')).toEqual(['page', 'per_page', 'status', 'type']);
    expect(query('/transactions')).toEqual(['from', 'page', 'per_page', 'reason', 'reference_type', 'reference_uuid', 'to']);
    const status = model.operations.find((o) => o.operationId === 'listCards')!.queryParams.find((q) => q.name === 'status')!;
    expect([status.style, status.explode, status.schema.type], 'GET /cards status is comma-separated').toEqual(['form', false, 'array']);
  });

  it('limits `reason` to 500 characters, nullable', () => {
    const reason = schema('CardActionRequest').properties.reason;
    expect(reason).toMatchObject({ type: ['string', 'null'], maxLength: 500 });
  });
});

describe('webhooks (contract section 6.4)', () => {
  it('has exactly the 14 events', () => {
    expect(model.events.map((e) => e.name).sort()).toEqual(Object.keys(EVENTS).sort());
  });

  it.each(Object.entries(EVENTS))('%s carries its data fields, the signature header and an example', (name, fields) => {
    const event = model.events.find((e) => e.name === name);
    expect(event, `event ${name} is missing`).toBeDefined();
    for (const field of fields) expect(event!.dataFields, `${name}: data.${field}`).toContain(field);
    expect(event!.signatureHeader).toBe('X-Service-Signature');
    expect((event!.example as { event?: string } | undefined)?.event, `${name}: example`).toBe(name);
  });
});

describe('enumerations (contract section 2.11)', () => {
  it.each(Object.entries(ENUMS))('%s lists every value with a description', (name, values) => {
    const found = model.enums.find((e) => e.name === name);
    expect(found, `enum ${name} is missing`).toBeDefined();
    expect([...found!.values].sort(), `values of ${name}`).toEqual([...values].sort());
    for (const value of values) expect(found!.descriptions[value], `${name}.${value} description`).toBeTruthy();
  });

  it('error codes include every documented code', () => {
    const codes = model.enums.find((e) => e.name === 'ErrorCode')!.values;
    for (const code of DOCUMENTED_ERROR_CODES) expect(codes, `ErrorCode ${code}`).toContain(code);
  });
});

describe('resources (contract section 2)', () => {
  it.each(Object.entries(RESOURCE_FIELDS))('%s has every documented field, required unless its read leaves it out', (name, fields) => {
    const s = schema(name);
    const optional = OPTIONAL_BY_CONTRACT[name] ?? [];
    for (const field of fields) {
      expect(Object.keys(s.properties ?? {}), `${name}.${field}`).toContain(field);
      if (optional.includes(field)) expect(s.required, `${name}.${field} optional`).not.toContain(field);
      else expect(s.required, `${name}.${field} required`).toContain(field);
    }
  });

  it('composes the card detail from the list row without repeating its fields', () => {
    const detail = schema('CardDetail');
    expect(detail.allOf[0]).toEqual({ $ref: '#/components/schemas/Card' });
    const own = Object.keys(detail.allOf[1].properties);
    for (const field of RESOURCE_FIELDS.Card!) expect(own, `CardDetail repeats ${field}`).not.toContain(field);
  });

  it('keeps money as decimal strings under a pattern', () => {
    expect(schema('DecimalString')).toMatchObject({ type: 'string', pattern: expect.any(String) });
    expect(schema('AmountInput')).toMatchObject({ type: 'string', pattern: expect.any(String) });
  });

  it('records the 2026-08-01 rename', () => {
    const description = String((model.document.info as { description?: string }).description);
    expect(description).toContain('2026-08-01');
    expect(description).toMatch(/fx_amount.*merchant_amount/s);
  });
});

describe('assumptions (docs/decisions.md)', () => {
  it('every decision is marked in the spec and every mark is a listed decision', () => {
    const decisions = readFileSync(path.resolve(import.meta.dirname, '../../docs/decisions.md'), 'utf8');
    const listed = new Set([...decisions.matchAll(/^\| (D\d+) \|/gm)].map((m) => m[1]));
    const text = readFileSync(SPEC, 'utf8');
    const marked = new Set([...text.matchAll(/x-assumption: (D\d+)/g), ...text.matchAll(/; (D\d+) /g)].map((m) => m[1]));
    const missing = [...listed].filter((id) => !marked.has(id));
    const unknown = [...marked].filter((id) => !listed.has(id));
    expect(missing, 'decisions with no x-assumption in the spec').toEqual([]);
    expect(unknown, 'x-assumption ids not in docs/decisions.md').toEqual([]);
  });
});
