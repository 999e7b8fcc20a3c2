/**
 * `@card-api/sandbox`: a stateful, transport-free implementation of the Card Issuing API on
 * SQLite. The HTTP plugin generated from the OpenAPI spec calls these services.
 */
export { createSandbox, DEFAULT_SEED_BALANCE } from './sandbox.js';
export type { Sandbox, SandboxAdmin, SandboxOptions, SeededWorkspace } from './sandbox.js';
export { createManualClock, createSystemClock } from './clock.js';
export type { AdjustableClock, Clock } from './clock.js';
export { SandboxError } from './errors.js';
export type { SandboxErrorCode } from './errors.js';
export { ACCOUNT_CODES } from './ledger.js';
export type { AccountCode, LedgerQuery, LedgerService, WalletService } from './ledger.js';
export { UNLIMITED } from './auth.js';
export type { AuthResult, AuthService, RateLimitResult } from './auth.js';
export type { CardListQuery, CardsService } from './cards.js';
export type { CatalogueService } from './catalogue.js';
export type { EventsService } from './events.js';
export type { OrderListQuery, OrdersService } from './orders.js';
export type { SecretsService } from './secrets.js';
export { DEFAULT_DELIVERY_TIMEOUT_MS, DEFAULT_MAX_ATTEMPTS, DEFAULT_MAX_IN_FLIGHT, DEFAULT_MAX_IN_FLIGHT_PER_ENDPOINT, DEFAULT_RETRY_SCHEDULE_MS, httpTransport } from './delivery.js';
export type { DeliveriesService, DeliveryListQuery, DeliveryRunResult, WebhookRequest, WebhookTransport } from './delivery.js';
export type { RegisterEndpointInput, UpdateEndpointInput, WebhooksService } from './webhooks.js';
export type {
  AuthorizeInput,
  CardTransactionQuery,
  CardTransactionReads,
  ConsumptionBillQuery,
  DeclineInput,
  MerchantInput,
  PartialAmountInput,
  ResolveChargebackInput,
  SimulateService,
} from './transactions.js';
export type { RiskFreezeInput, RiskPenaltyInput, RiskPenaltyResult, RiskService } from './risk.js';
export type { CreateTokenInput, CreateWorkspaceInput, CreatedToken, DepositInput, WorkspaceAdmin } from './workspaces.js';
export { DEFAULT_PER_PAGE, MAX_PER_PAGE } from './pagination.js';
export { IDEMPOTENCY_WINDOW_MS } from './idempotency.js';
export * from './types.js';
export * from './http/index.js';
export * from './control/index.js';
