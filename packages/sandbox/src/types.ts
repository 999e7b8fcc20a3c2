/**
 * Response and request shapes of the sandbox services. Field names and nesting follow the
 * contract (sections 2.1-2.9) exactly, so the HTTP layer can return them as they are.
 * Money is a decimal string with 2 decimals; `*_at` fields are ISO 8601 UTC strings.
 */

export const CARD_STATUSES = ['pending_issue', 'active', 'frozen', 'pending_close', 'closed', 'issue_failed'] as const;
export type CardStatus = (typeof CARD_STATUSES)[number];

export const CARDHOLDER_TYPES = ['user', 'staff'] as const;
export type CardholderType = (typeof CARDHOLDER_TYPES)[number];

export const ORDER_STATUSES = ['pending', 'processing', 'awaiting_platform', 'completed', 'failed'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const ORDER_TYPES = ['issue_card', 'topup_card', 'close_card', 'freeze', 'unfreeze'] as const;
export type OrderType = (typeof ORDER_TYPES)[number];

export const ORDER_FAILURE_REASONS = [
  'supplier5xx',
  'timeout',
  'network',
  'signature',
  'business4xx',
  'not_found',
  'preempted_by_risk',
  'admin_refund_close',
  'async_issue_failed',
] as const;
export type OrderFailureReason = (typeof ORDER_FAILURE_REASONS)[number];

export const LEDGER_REASON_CODES = [
  'card_issue_held',
  'card_topup_held',
  'held_capture',
  'held_release',
  'held_release_admin',
  'card_issue_fee',
  'card_topup_fee',
  'card_close_refund',
  'usdt_deposit',
  'usdt_deposit_fee',
  'withdrawal_held',
  'withdrawal_completed',
  'withdrawal_canceled',
  'withdrawal_rejected',
  'card_spend',
  'card_spend_refund',
  'card_spend_reversal',
  'card_post_close_clawback',
  'card_post_close_refund',
  'card_reconcile_adjustment',
  'subscription_charge',
  'risk_penalty',
  'reversal',
] as const;
export type LedgerReasonCode = (typeof LEDGER_REASON_CODES)[number];

export const ABILITIES = ['cards.read', 'cards.write', 'orders.read', 'wallet.read', 'transactions.read'] as const;
export type Ability = (typeof ABILITIES)[number];

export type WorkspaceStatus = 'active' | 'frozen' | 'deleted';

/** A workspace as the admin services and `auth.authenticate` return it (not a contract resource). */
export interface Workspace {
  id: number;
  slug: string;
  name: string;
  base_currency: string;
  status: WorkspaceStatus;
  created_at: string;
}

/** Billing address (section 2.4). */
export interface BillingAddress {
  line1: string;
  line2: string | null;
  city: string;
  state: string | null;
  postal_code: string;
  country: string;
}

/** Card product row of `GET /card-products` (section 2.1), annotated for one workspace. */
export interface CardProduct {
  id: number;
  code: string;
  display_name: string;
  description: string;
  currency: string;
  bin: string;
  issuer_country: string;
  supports_custom_holder_name: boolean;
  supports_custom_billing_address: boolean;
  default_billing_address: BillingAddress | null;
  fees: { card_issue_fixed: string; topup_fixed: string; topup_percent: string };
  min_initial_topup_amount: string;
  min_topup_amount: string;
  required_subscription_product_code: string | null;
  requires_subscription: boolean;
  subscription_satisfied: boolean;
  currency_match: boolean;
  available: boolean;
}

/** Card list row (section 2.2). */
export interface CardListRow {
  uuid: string;
  status: CardStatus;
  cardholder_type: CardholderType;
  cardholder_first_name: string;
  cardholder_last_name: string;
  masked_pan: string;
  pan_last4: string;
  pan_bin: string;
  currency: string;
  card_balance: string;
  card_product_id: number;
  issued_at: string | null;
  last_active_txn_at: string | null;
  created_at: string | null;
}

/** Card detail (section 2.3). */
export interface CardDetail extends CardListRow {
  workspace_id: number;
  held_amount: string;
  available_balance: string;
  lifetime_topup_amount: string;
  lifetime_spend_amount: string;
  lifetime_refund_amount: string;
  avs_billing_address: BillingAddress | null;
  supports_freeze: boolean;
  supports_unfreeze: boolean;
  supports_balance_query: boolean;
  appeal_terminated: boolean;
  closed_at: string | null;
  updated_at: string | null;
}

/** Order (section 2.7, D8). */
export interface Order {
  uuid: string;
  type: OrderType;
  status: OrderStatus;
  related_card_uuid: string | null;
  held_amount: string;
  currency: string;
  created_at: string;
  failure_reason: OrderFailureReason | null;
}

/** The 202 body of a write: the Order plus the deprecated alias `related_card_id` (D8). */
export interface AcceptedOrder extends Order {
  related_card_id: string | null;
}

/** One currency of `GET /wallet` (section 2.8). */
export interface WalletBalance {
  currency: string;
  balance: string;
  held_balance: string;
  available: string;
  frozen_at: string | null;
  frozen_reason: string | null;
  last_reconciled_at: string;
}

/** `GET /wallet` data (section 2.8). */
export interface Wallet {
  workspace_id: number;
  wallets: WalletBalance[];
}

/** Ledger row of `GET /transactions` (section 2.9). */
export interface LedgerRow {
  id: number;
  txn_group_id: string;
  reason_code: LedgerReasonCode;
  direction: 'debit' | 'credit';
  amount: string;
  currency: string;
  account_code: string | null;
  account_card_uuid: string | null;
  reference_type: string | null;
  reference_uuid: string | null;
  description: string | null;
  created_at: string;
}

/** Paginated list envelope (D1). */
export interface Paginated<T> {
  data: T[];
  meta: { current_page: number; per_page: number; total: number; last_page: number; from: number | null; to: number | null };
  links: { first: string; last: string; prev: string | null; next: string | null };
}

/** Body of `POST /cards`. `cardholder_type` is a sandbox extension (default `user`); the contract body has no such field. */
export interface CreateCardBody {
  card_product_id: number;
  initial_topup_amount: string;
  cardholder_first_name: string;
  cardholder_last_name: string;
  billing_address?: BillingAddress | undefined;
  purpose?: string | undefined;
  notes?: string | undefined;
  cardholder_type?: CardholderType | undefined;
}

/** Body of `POST /cards/{uuid}/topup`. */
export interface TopupBody {
  amount: string;
  notes?: string | undefined;
}

/** Optional body of freeze, unfreeze and close. */
export interface ReasonBody {
  reason?: string | null | undefined;
}

/** Card secrets (D22), only ever returned by `secrets.forCard`. */
export interface CardSecrets {
  pan: string;
  cvv: string;
  expiry_month: string;
  expiry_year: string;
}

/** Webhook event envelope (section 6.1, D13), as stored in the outbox. */
export interface SandboxEvent {
  event: string;
  event_id: number;
  occurred_at: string;
  workspace_id: number;
  data: Record<string, unknown>;
}

/** The 14 webhook event codes of contract section 6.4. */
export const WEBHOOK_EVENT_CODES = [
  'order.completed',
  'order.failed',
  'card.issued.secrets',
  'card.transaction.authorized',
  'card.transaction.captured',
  'card.transaction.reversed',
  'card.transaction.declined',
  'card.transaction.refunded',
  'card.transaction.chargeback_opened',
  'card.frozen',
  'card.unfrozen',
  'card.close_initiated',
  'card.closed',
  'card.risk.penalty_applied',
] as const;
export type WebhookEventCode = (typeof WEBHOOK_EVENT_CODES)[number];

export const TRANSACTION_TYPES = ['authorization', 'capture', 'refund', 'reversal', 'decline', 'chargeback_opened', 'chargeback_resolved'] as const;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

export const TRANSACTION_STATUSES = ['pending', 'posted', 'reversed', 'failed'] as const;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

export const DECLINE_REASONS = ['insufficient_funds', 'card_frozen', 'avs_mismatch', 'cvv_mismatch', 'risk_blocked', 'other'] as const;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

/** `origin` of `card.frozen` / `card.close_initiated` (D9). */
export type ActionOrigin = 'workspace' | 'platform_risk' | 'issuer';

/** Merchant of a card transaction (section 2.5). */
export interface Merchant {
  raw_name: string;
  canonical_merchant_id: string | null;
  canonical_name: string | null;
  /** Four digits. */
  mcc: string | null;
  /** 2-letter country code. */
  country: string | null;
}

/** Merchant of a consumption bill (section 2.6): the transaction merchant without `canonical_merchant_id`. */
export type MerchantSummary = Omit<Merchant, 'canonical_merchant_id'>;

/**
 * Card transaction row (section 2.5), the same object as `data.transaction` of every
 * `card.transaction.*` event. `supplier_txn_id` is the undocumented grouping key D23 allows.
 */
export interface CardTransaction {
  uuid: string;
  type: TransactionType;
  status: TransactionStatus;
  amount: string;
  currency: string;
  merchant_amount: string;
  merchant_currency: string;
  fx_rate: string | null;
  merchant: Merchant;
  auth_code: string | null;
  decline_reason: DeclineReason | null;
  occurred_at: string | null;
  posted_at: string | null;
  created_at: string | null;
  supplier_txn_id: string;
}

export const CONSUMPTION_BILL_KINDS = ['purchase', 'refund', 'decline', 'chargeback', 'other'] as const;
export type ConsumptionBillKind = (typeof CONSUMPTION_BILL_KINDS)[number];

export const CONSUMPTION_BILL_STATUSES = ['authorized', 'settled', 'reversed', 'expired', 'declined', 'refunded', 'chargeback_opened', 'chargeback_resolved'] as const;
export type ConsumptionBillStatus = (typeof CONSUMPTION_BILL_STATUSES)[number];

/** Consumption bill (section 2.6): one purchase, its rows merged. */
export interface ConsumptionBill {
  id: number;
  kind: ConsumptionBillKind;
  status: ConsumptionBillStatus;
  amount: string;
  currency: string;
  authorized_amount: string | null;
  settled_amount: string | null;
  merchant_amount: string;
  merchant_currency: string;
  fx_rate: string | null;
  merchant: MerchantSummary | null;
  auth_code: string | null;
  decline_reason: DeclineReason | null;
  occurred_at: string;
  settled_at: string | null;
  lines: CardTransaction[];
}

/** A registered webhook endpoint (section 2.10) as listed: never with its signing secret. */
export interface WebhookEndpoint {
  id: number;
  workspace_id: number;
  url: string;
  /** Subscribed codes or `<prefix>.*` patterns; `'*'` = every event. */
  events: string[] | '*';
  status: 'active' | 'disabled';
  /** `manual` (disableEndpoint) or `failing` (D19: a delivery failed 8 times). */
  disabled_reason: 'manual' | 'failing' | null;
  description: string | null;
  created_at: string;
  disabled_at: string | null;
}

/** `registerEndpoint`'s answer: the endpoint plus its signing secret, the only time it is shown. */
export interface CreatedWebhookEndpoint extends WebhookEndpoint {
  secret: string;
}

/** The workspace's RSA public key (section 6.6, D15). */
export interface WorkspacePublicKey {
  workspace_id: number;
  /** Normalised SPKI PEM. */
  public_key_pem: string;
  /** Lowercase hex SHA-256 of the DER SubjectPublicKeyInfo (D15). */
  key_fingerprint: string;
  created_at: string;
}

export const DELIVERY_STATUSES = ['pending', 'sending', 'succeeded', 'failed', 'cancelled'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * One event's delivery to one endpoint. `failed` = the attempts ran out (the endpoint was
 * disabled); `cancelled` = the endpoint was disabled while it waited.
 */
export interface WebhookDelivery {
  id: number;
  workspace_id: number;
  endpoint_id: number;
  event_id: number;
  event: string;
  /** The exact bytes (UTF-8) POSTed on every attempt. */
  body: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  /** HTTP status of the last attempt; null after a network error or timeout. */
  last_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  created_at: string;
}
