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
