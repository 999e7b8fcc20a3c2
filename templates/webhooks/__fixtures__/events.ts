// Test support only (not runtime): a small event union mirroring the contract's catalog (section 6.4),
// and builders for realistic bodies. The generators must not copy this folder.

export type TransactionRow = {
  uuid: string;
  type: 'authorization' | 'capture' | 'refund' | 'reversal' | 'decline' | 'chargeback_opened' | 'chargeback_resolved';
  status: 'pending' | 'posted' | 'reversed' | 'failed';
  amount: string;
  currency: string;
  merchant_amount: string;
  merchant_currency: string;
  fx_rate: string | null;
  merchant: { raw_name: string; canonical_merchant_id: string | null; canonical_name: string | null; mcc: string; country: string };
  auth_code: string | null;
  decline_reason: string | null;
  occurred_at: string | null;
  posted_at: string | null;
  created_at: string | null;
  supplier_txn_id?: string | null;
};

type Envelope<N extends string, D> = { event: N; event_id: number; occurred_at: string; workspace_id: number; data: D };
type TransactionData = { card_uuid: string; pan_last4: string; transaction: TransactionRow };

export type OrderCompleted = Envelope<
  'order.completed',
  { order_uuid: string; type: string; held_amount: string; currency: string; card_uuid: string; completed_at: string }
>;
export type OrderFailed = Envelope<
  'order.failed',
  { order_uuid: string; type: string; card_uuid: string | null; failure_reason: string; failed_at: string }
>;
export type CardFrozen = Envelope<
  'card.frozen',
  {
    card_uuid: string;
    workspace_id: number;
    cardholder_type: 'user' | 'staff';
    pan_last4: string;
    status: string;
    origin: 'workspace' | 'platform_risk' | 'issuer';
    reason: string | null;
    frozen_at: string;
  }
>;
export type TransactionAuthorized = Envelope<'card.transaction.authorized', TransactionData>;
export type TransactionCaptured = Envelope<'card.transaction.captured', TransactionData>;

/** The test union, standing in for the generated `CardApiEvent`. */
export type TestEvent = OrderCompleted | OrderFailed | CardFrozen | TransactionAuthorized | TransactionCaptured;

export const CARD = '0b6f4c1e-3a52-4d8e-9f7a-2c1d5e8b9a10';

export function orderCompleted(eventId = 1001, orderUuid = '5f2b8c3d-1e4a-4b6c-8d9e-0f1a2b3c4d5e'): OrderCompleted {
  return {
    event: 'order.completed',
    event_id: eventId,
    occurred_at: '2026-03-01T10:00:00Z',
    workspace_id: 42,
    data: { order_uuid: orderUuid, type: 'issue_card', held_amount: '101.00', currency: 'USD', card_uuid: CARD, completed_at: '2026-03-01T10:00:00Z' },
  };
}

export function cardFrozen(eventId = 1002): CardFrozen {
  return {
    event: 'card.frozen',
    event_id: eventId,
    occurred_at: '2026-03-01T11:00:00Z',
    workspace_id: 42,
    data: {
      card_uuid: CARD,
      workspace_id: 42,
      cardholder_type: 'user',
      pan_last4: '4242',
      status: 'frozen',
      origin: 'platform_risk',
      reason: 'velocity rule',
      frozen_at: '2026-03-01T11:00:00Z',
    },
  };
}

/** A transaction row with realistic field sizes; `over` replaces fields. */
export function row(over: Partial<TransactionRow> = {}): TransactionRow {
  return {
    uuid: '9d1c7a52-6b3e-4f10-8a2d-5e4c3b2a1f00',
    type: 'authorization',
    status: 'pending',
    amount: '42.50',
    currency: 'USD',
    merchant_amount: '39.20',
    merchant_currency: 'EUR',
    fx_rate: '1.08418367',
    merchant: {
      raw_name: 'AMZN Mktp DE*2K4HT0XY1 amazon.de LU',
      canonical_merchant_id: 'mch_amazon_de',
      canonical_name: 'Amazon.de Marketplace',
      mcc: '5942',
      country: 'LU',
    },
    auth_code: '831204',
    decline_reason: null,
    occurred_at: '2026-03-01T12:00:00Z',
    posted_at: null,
    created_at: '2026-03-01T12:00:01Z',
    supplier_txn_id: 'sup_7f3a9c2e4b1d',
    ...over,
  };
}

export function transactionEvent(
  name: 'card.transaction.authorized' | 'card.transaction.captured',
  eventId = 1003,
  over: Partial<TransactionRow> = {},
): TransactionAuthorized | TransactionCaptured {
  return { event: name, event_id: eventId, occurred_at: '2026-03-01T12:00:02Z', workspace_id: 42, data: { card_uuid: CARD, pan_last4: '4242', transaction: row(over) } };
}

/** A captured-transaction body of about 1 kB, pretty-printed like many senders do. */
export function realisticBody(): string {
  return JSON.stringify(transactionEvent('card.transaction.captured', 73_421_118, { type: 'capture', status: 'posted', posted_at: '2026-03-03T04:12:55Z' }), null, 2);
}
