/**
 * Response and request shapes of the sandbox services. Every enumeration and every resource shape is the
 * one `@card-api/types` generates from `spec/openapi.yaml` (and the control shapes the one generated from
 * `spec/sandbox/control.yaml`), so that a spec change reaches the sandbox through the compiler, as it reaches
 * the client and the server stubs. Only sandbox-internal shapes (endpoints, deliveries, keys) are declared here.
 * Money is a decimal string with 2 decimals; `*_at` fields are ISO 8601 UTC strings.
 */
import {
  AbilityValues,
  CardStatusValues,
  CardholderTypeValues,
  ConsumptionBillKindValues,
  ConsumptionBillStatusValues,
  DeclineReasonValues,
  LedgerReasonCodeValues,
  OrderFailureReasonValues,
  OrderStatusValues,
  OrderTypeValues,
  TransactionStatusValues,
  TransactionTypeValues,
  type AcceptedOrder as SpecAcceptedOrder,
  type ActionOrigin as SpecActionOrigin,
  type BillingAddress as SpecBillingAddress,
  type BillingAddressInput,
  type Card,
  type CardActionRequest,
  type CardDetail as SpecCardDetail,
  type CardProduct as SpecCardProduct,
  type CardTransaction as SpecCardTransaction,
  type ConsumptionBill as SpecConsumptionBill,
  type CreateCardRequest,
  type LedgerEntry,
  type Merchant as SpecMerchant,
  type MerchantSummary as SpecMerchantSummary,
  type Order as SpecOrder,
  type PaginationLinks,
  type PaginationMeta,
  type TopupCardRequest,
  type Wallet as SpecWallet,
  type WalletBalance as SpecWalletBalance,
} from '@card-api/types';
import { EVENT_NAMES, type EventName } from '@card-api/webhooks';
import { DeliveryStatusValues, type components } from './control/types.gen.js';

type ControlSchemas = components['schemas'];

export const CARD_STATUSES = CardStatusValues;
export type CardStatus = (typeof CARD_STATUSES)[number];

export const CARDHOLDER_TYPES = CardholderTypeValues;
export type CardholderType = (typeof CARDHOLDER_TYPES)[number];

export const ORDER_STATUSES = OrderStatusValues;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

export const ORDER_TYPES = OrderTypeValues;
export type OrderType = (typeof ORDER_TYPES)[number];

export const ORDER_FAILURE_REASONS = OrderFailureReasonValues;
export type OrderFailureReason = (typeof ORDER_FAILURE_REASONS)[number];

export const LEDGER_REASON_CODES = LedgerReasonCodeValues;
export type LedgerReasonCode = (typeof LEDGER_REASON_CODES)[number];

export const ABILITIES = AbilityValues;
export type Ability = (typeof ABILITIES)[number];

/** A workspace's status, as the control document's `Workspace` has it. */
export type WorkspaceStatus = ControlSchemas['Workspace']['status'];

/** A workspace as the admin services and `auth.authenticate` return it (the control document's `Workspace`). */
export type Workspace = ControlSchemas['Workspace'];

/** Billing address as answered (section 2.4, D35). */
export type BillingAddress = SpecBillingAddress;

/** Card product row of `GET /card-products` (section 2.1), annotated for one workspace. */
export type CardProduct = SpecCardProduct;

/** Card list row (section 2.2). */
export type CardListRow = Card;

/** Card detail (section 2.3). */
export type CardDetail = SpecCardDetail;

/** Order (section 2.7, D29). */
export type Order = SpecOrder;

/** The 202 body of a write (D8, D29); the sandbox always sends every optional field, `related_card_id` as the card's numeric id. */
export type AcceptedOrder = SpecAcceptedOrder & { related_card_uuid: string | null; related_card_id: number | null; failure_reason: NonNullable<SpecAcceptedOrder['failure_reason']> | null };

/** One currency of `GET /wallet` (section 2.8). */
export type WalletBalance = SpecWalletBalance;

/** `GET /wallet` data (section 2.8). */
export type Wallet = SpecWallet;

/** Ledger row of `GET /transactions` (section 2.9). */
export type LedgerRow = LedgerEntry;

/** Paginated list envelope (D1). */
export interface Paginated<T> {
  data: T[];
  meta: PaginationMeta;
  links: PaginationLinks;
}

/** Body of `POST /cards`. `cardholder_type` is a sandbox extension (default `user`); the contract body has no such field. */
export type CreateCardBody = Omit<CreateCardRequest, 'billing_address'> & {
  billing_address?: BillingAddressInput | undefined;
  purpose?: string | undefined;
  notes?: string | undefined;
  cardholder_type?: CardholderType | undefined;
};

/** Body of `POST /cards/{uuid}/topup`. */
export type TopupBody = TopupCardRequest;

/** Optional body of freeze, unfreeze and close. */
export type ReasonBody = CardActionRequest;

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

/** The 14 webhook event codes of contract section 6.4, as `@card-api/webhooks` generates them. */
export const WEBHOOK_EVENT_CODES = EVENT_NAMES;
export type WebhookEventCode = EventName;

export const TRANSACTION_TYPES = TransactionTypeValues;
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

export const TRANSACTION_STATUSES = TransactionStatusValues;
export type TransactionStatus = (typeof TRANSACTION_STATUSES)[number];

export const DECLINE_REASONS = DeclineReasonValues;
export type DeclineReason = (typeof DECLINE_REASONS)[number];

/** `origin` of `card.frozen` / `card.close_initiated` (D9). */
export type ActionOrigin = SpecActionOrigin;

/** Merchant of a card transaction (section 2.5). */
export type Merchant = SpecMerchant;

/** Merchant of a consumption bill (section 2.6): the transaction merchant without `canonical_merchant_id`. */
export type MerchantSummary = SpecMerchantSummary;

/**
 * Card transaction row (section 2.5), the same object as `data.transaction` of every
 * `card.transaction.*` event. `supplier_txn_id` is the undocumented grouping key D23 allows; the sandbox always sets it.
 */
export type CardTransaction = SpecCardTransaction & { supplier_txn_id: string };

export const CONSUMPTION_BILL_KINDS = ConsumptionBillKindValues;
export type ConsumptionBillKind = (typeof CONSUMPTION_BILL_KINDS)[number];

export const CONSUMPTION_BILL_STATUSES = ConsumptionBillStatusValues;
export type ConsumptionBillStatus = (typeof CONSUMPTION_BILL_STATUSES)[number];

/** Consumption bill (section 2.6): one purchase, its rows merged. */
export type ConsumptionBill = Omit<SpecConsumptionBill, 'lines'> & { lines: CardTransaction[] };

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

/** Delivery statuses of the control document (`DeliveryStatus`). */
export const DELIVERY_STATUSES = DeliveryStatusValues;
export type DeliveryStatus = ControlSchemas['DeliveryStatus'];

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
