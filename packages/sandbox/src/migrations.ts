import type { Migration } from './store/index.js';

/**
 * Versioned schema, in SQLite's dialect. The store runs each migration once, in its own transaction, and records
 * its version (`PRAGMA user_version`); a database file written by an older sandbox is brought forward on open. Append new migrations; never edit an applied one.
 *
 * Money columns are TEXT decimal strings with 2 decimals (never REAL), timestamps are
 * ISO 8601 UTC TEXT, and due times of scheduled work are INTEGER epoch milliseconds so that
 * the scheduler can compare them cheaply.
 */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'core schema',
    sql: `
CREATE TABLE workspaces (
  id INTEGER PRIMARY KEY,
  slug TEXT NOT NULL UNIQUE,
  name TEXT NOT NULL,
  base_currency TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'frozen', 'deleted')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

CREATE TABLE workspace_subscriptions (
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
  product_code TEXT NOT NULL,
  PRIMARY KEY (workspace_id, product_code)
);

CREATE TABLE api_tokens (
  id INTEGER PRIMARY KEY,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
  name TEXT NOT NULL,
  prefix TEXT NOT NULL,
  token_hash TEXT NOT NULL UNIQUE,
  abilities TEXT NOT NULL,
  ip_allowlist TEXT NOT NULL,
  rate_limit_per_minute INTEGER,
  created_at TEXT NOT NULL,
  revoked_at TEXT
);

CREATE TABLE rate_counters (
  bucket TEXT NOT NULL,
  window_start_ms INTEGER NOT NULL,
  count INTEGER NOT NULL,
  PRIMARY KEY (bucket, window_start_ms)
);

CREATE TABLE card_products (
  id INTEGER PRIMARY KEY,
  code TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  description TEXT NOT NULL,
  currency TEXT NOT NULL,
  bin TEXT NOT NULL,
  issuer_country TEXT NOT NULL,
  supports_custom_holder_name INTEGER NOT NULL,
  supports_custom_billing_address INTEGER NOT NULL,
  default_billing_address TEXT,
  card_issue_fixed TEXT NOT NULL,
  topup_fixed TEXT NOT NULL,
  topup_percent TEXT NOT NULL,
  min_initial_topup_amount TEXT NOT NULL,
  min_topup_amount TEXT NOT NULL,
  required_subscription_product_code TEXT
);

CREATE TABLE cards (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
  card_product_id INTEGER NOT NULL REFERENCES card_products(id),
  status TEXT NOT NULL CHECK (status IN ('pending_issue', 'active', 'frozen', 'pending_close', 'closed', 'issue_failed')),
  cardholder_type TEXT NOT NULL CHECK (cardholder_type IN ('user', 'staff')),
  cardholder_first_name TEXT NOT NULL,
  cardholder_last_name TEXT NOT NULL,
  pan_bin TEXT NOT NULL,
  pan_last4 TEXT NOT NULL,
  currency TEXT NOT NULL,
  held_amount TEXT NOT NULL,
  lifetime_topup_amount TEXT NOT NULL,
  lifetime_spend_amount TEXT NOT NULL,
  lifetime_refund_amount TEXT NOT NULL,
  avs_billing_address TEXT,
  purpose TEXT,
  notes TEXT,
  appeal_terminated INTEGER NOT NULL DEFAULT 0,
  issued_at TEXT,
  last_active_txn_at TEXT,
  closed_at TEXT,
  close_due_at_ms INTEGER,
  close_refund_amount TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);
CREATE INDEX cards_workspace ON cards (workspace_id, id);
CREATE INDEX cards_close_due ON cards (close_due_at_ms) WHERE close_due_at_ms IS NOT NULL;

-- Kept apart from cards so that no query feeding a response can select them by accident.
CREATE TABLE card_secrets (
  card_uuid TEXT PRIMARY KEY REFERENCES cards(uuid),
  pan TEXT NOT NULL,
  cvv TEXT NOT NULL,
  expiry_month TEXT NOT NULL,
  expiry_year TEXT NOT NULL
);

CREATE TABLE orders (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
  type TEXT NOT NULL CHECK (type IN ('issue_card', 'topup_card', 'close_card', 'freeze', 'unfreeze')),
  status TEXT NOT NULL CHECK (status IN ('pending', 'processing', 'awaiting_platform', 'completed', 'failed')),
  card_uuid TEXT REFERENCES cards(uuid),
  held_amount TEXT NOT NULL,
  credit_amount TEXT NOT NULL,
  fee_amount TEXT NOT NULL,
  currency TEXT NOT NULL,
  reason TEXT,
  status_before TEXT,
  forced_failure_reason TEXT,
  failure_reason TEXT,
  next_step_at_ms INTEGER,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  completed_at TEXT,
  failed_at TEXT
);
CREATE INDEX orders_workspace ON orders (workspace_id, id);
CREATE INDEX orders_card ON orders (card_uuid, status);
CREATE INDEX orders_due ON orders (next_step_at_ms) WHERE next_step_at_ms IS NOT NULL;

CREATE TABLE idempotency_keys (
  workspace_id INTEGER NOT NULL,
  operation TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  order_uuid TEXT NOT NULL REFERENCES orders(uuid),
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (workspace_id, operation, key)
);

CREATE TABLE accounts (
  workspace_id INTEGER NOT NULL,
  currency TEXT NOT NULL,
  code TEXT NOT NULL,
  card_uuid TEXT NOT NULL DEFAULT '',
  balance TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (workspace_id, currency, code, card_uuid)
);

CREATE TABLE ledger_entries (
  id INTEGER PRIMARY KEY,
  workspace_id INTEGER NOT NULL,
  txn_group_id TEXT NOT NULL,
  reason_code TEXT NOT NULL,
  direction TEXT NOT NULL CHECK (direction IN ('debit', 'credit')),
  amount TEXT NOT NULL,
  currency TEXT NOT NULL,
  account_code TEXT NOT NULL,
  account_card_uuid TEXT,
  reference_type TEXT,
  reference_uuid TEXT,
  description TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX ledger_workspace ON ledger_entries (workspace_id, id);
CREATE INDEX ledger_group ON ledger_entries (txn_group_id);

CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  workspace_id INTEGER NOT NULL,
  event TEXT NOT NULL,
  occurred_at TEXT NOT NULL,
  data TEXT NOT NULL
);

-- Failures queued by the sandbox control (failNextOrder); consumed when the next order is accepted.
CREATE TABLE forced_failures (
  target TEXT PRIMARY KEY,
  failure_reason TEXT NOT NULL
);
`,
  },
  {
    version: 2,
    name: 'seed the platform card catalogue',
    sql: `
INSERT INTO card_products (id, code, display_name, description, currency, bin, issuer_country,
  supports_custom_holder_name, supports_custom_billing_address, default_billing_address,
  card_issue_fixed, topup_fixed, topup_percent, min_initial_topup_amount, min_topup_amount,
  required_subscription_product_code) VALUES
 (1, 'visa_usd_standard', 'Visa USD Standard', 'General-purpose virtual Visa card in USD.', 'USD', '411111', 'US',
  1, 0, '{"line1":"1 Sandbox Way","line2":null,"city":"Wilmington","state":"DE","postal_code":"19801","country":"US"}',
  '5.00', '1.00', '0.0150', '10.00', '5.00', NULL),
 (2, 'mc_usd_premium', 'Mastercard USD Premium', 'Virtual Mastercard in USD with a custom billing address.', 'USD', '555555', 'US',
  1, 1, NULL,
  '10.00', '0.00', '0.0200', '50.00', '20.00', NULL),
 (3, 'visa_eur_travel', 'Visa EUR Travel', 'Virtual Visa card in EUR for European merchants.', 'EUR', '400012', 'LT',
  0, 0, '{"line1":"Gedimino pr. 1","line2":null,"city":"Vilnius","state":null,"postal_code":"01103","country":"LT"}',
  '3.00', '0.50', '0.0100', '20.00', '10.00', NULL),
 (4, 'mc_usd_ads', 'Mastercard USD Ads', 'Virtual Mastercard for advertising spend; needs the ads_pro subscription.', 'USD', '222300', 'US',
  1, 1, NULL,
  '2.00', '0.00', '0.0050', '100.00', '50.00', 'ads_pro');
`,
  },
  {
    version: 3,
    name: 'webhook endpoints, RSA key, deliveries, card-secrets jobs',
    sql: `
-- The signing secret is stored in clear because the sandbox must sign with it; it is returned
-- once by registerEndpoint and never listed.
CREATE TABLE webhook_endpoints (
  id INTEGER PRIMARY KEY,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  secret TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('active', 'disabled')),
  disabled_reason TEXT CHECK (disabled_reason IN ('manual', 'failing')),
  description TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  disabled_at TEXT
);
CREATE INDEX webhook_endpoints_workspace ON webhook_endpoints (workspace_id, status);

-- One RSA public key per workspace (contract 2.10); the fingerprint is D15's.
CREATE TABLE workspace_public_keys (
  workspace_id INTEGER PRIMARY KEY REFERENCES workspaces(id),
  public_key_pem TEXT NOT NULL,
  fingerprint TEXT NOT NULL,
  created_at TEXT NOT NULL
);

-- One row per (endpoint, event). body is the envelope serialised once, so every attempt sends
-- the same bytes. 'sending' marks a claimed attempt; a restart turns it back into 'pending'.
CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY,
  workspace_id INTEGER NOT NULL,
  endpoint_id INTEGER NOT NULL REFERENCES webhook_endpoints(id),
  event_id INTEGER NOT NULL REFERENCES events(id),
  event TEXT NOT NULL,
  body TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'sending', 'succeeded', 'failed', 'cancelled')),
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at_ms INTEGER,
  last_attempt_at TEXT,
  last_status INTEGER,
  last_error TEXT,
  delivered_at TEXT,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at_ms) WHERE status = 'pending';

-- Issued cards whose card.issued.secrets event still has to be encrypted (asynchronously) and recorded.
CREATE TABLE secrets_event_jobs (
  card_uuid TEXT PRIMARY KEY REFERENCES cards(uuid),
  workspace_id INTEGER NOT NULL,
  created_at TEXT NOT NULL
);
`,
  },
  {
    version: 4,
    name: 'card transactions',
    sql: `
-- One row per network event (contract 2.5), never updated: the row a webhook carried is the row
-- GET /cards/{uuid}/transactions shows. Rows of one purchase share supplier_txn_id (D23).
CREATE TABLE card_transactions (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  workspace_id INTEGER NOT NULL,
  card_uuid TEXT NOT NULL REFERENCES cards(uuid),
  supplier_txn_id TEXT NOT NULL,
  type TEXT NOT NULL CHECK (type IN ('authorization', 'capture', 'refund', 'reversal', 'decline', 'chargeback_opened', 'chargeback_resolved')),
  status TEXT NOT NULL CHECK (status IN ('pending', 'posted', 'reversed', 'failed')),
  amount TEXT NOT NULL,
  currency TEXT NOT NULL,
  merchant_amount TEXT NOT NULL,
  merchant_currency TEXT NOT NULL,
  fx_rate TEXT,
  merchant TEXT NOT NULL,
  auth_code TEXT,
  decline_reason TEXT,
  -- Sandbox bookkeeping, not part of the row shape: the chargeback outcome.
  resolution TEXT,
  occurred_at TEXT NOT NULL,
  posted_at TEXT,
  created_at TEXT NOT NULL
);
CREATE INDEX card_transactions_card ON card_transactions (card_uuid, id);
CREATE INDEX card_transactions_purchase ON card_transactions (supplier_txn_id, id);
`,
  },
  {
    version: 5,
    name: 'durable sandbox clock, per-endpoint delivery queues',
    sql: `
-- Small sandbox-wide settings that must survive a restart: 'clock_offset_ms' (how far the sandbox clock
-- was advanced ahead of real time).
CREATE TABLE sandbox_state (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);
-- The delivery worker takes the oldest due delivery of each endpoint, one queue per endpoint.
CREATE INDEX webhook_deliveries_endpoint_due ON webhook_deliveries (endpoint_id, next_attempt_at_ms) WHERE status = 'pending';
`,
  },
  {
    version: 6,
    name: 'freeze origin, product capabilities, row statuses that follow their outcome, secrets kept only until delivered',
    sql: `
-- D27: who froze the card (workspace, platform_risk, issuer); only that actor may lift the freeze.
ALTER TABLE cards ADD COLUMN frozen_origin TEXT CHECK (frozen_origin IN ('workspace', 'platform_risk', 'issuer'));
UPDATE cards SET frozen_origin = 'workspace' WHERE status = 'frozen';

-- D31: capability flags belong to the product, not to the card's status.
ALTER TABLE card_products ADD COLUMN supports_freeze INTEGER NOT NULL DEFAULT 1;
ALTER TABLE card_products ADD COLUMN supports_unfreeze INTEGER NOT NULL DEFAULT 1;
ALTER TABLE card_products ADD COLUMN supports_balance_query INTEGER NOT NULL DEFAULT 1;

-- D30: an authorization row follows its hold (posted when captured, reversed when reversed or, for a probe,
-- expired); a chargeback_opened row is posted once resolved. Rows written by an older sandbox are brought forward.
UPDATE card_transactions SET status = 'posted',
  posted_at = (SELECT c.posted_at FROM card_transactions c WHERE c.workspace_id = card_transactions.workspace_id AND c.supplier_txn_id = card_transactions.supplier_txn_id AND c.type = 'capture')
  WHERE type = 'authorization' AND status = 'pending' AND EXISTS (SELECT 1 FROM card_transactions c WHERE c.workspace_id = card_transactions.workspace_id AND c.supplier_txn_id = card_transactions.supplier_txn_id AND c.type = 'capture');
UPDATE card_transactions SET status = 'reversed',
  posted_at = (SELECT r.posted_at FROM card_transactions r WHERE r.workspace_id = card_transactions.workspace_id AND r.supplier_txn_id = card_transactions.supplier_txn_id AND r.type = 'reversal')
  WHERE type = 'authorization' AND status = 'pending' AND EXISTS (SELECT 1 FROM card_transactions r WHERE r.workspace_id = card_transactions.workspace_id AND r.supplier_txn_id = card_transactions.supplier_txn_id AND r.type = 'reversal');
UPDATE card_transactions SET status = 'posted',
  posted_at = (SELECT r.posted_at FROM card_transactions r WHERE r.workspace_id = card_transactions.workspace_id AND r.supplier_txn_id = card_transactions.supplier_txn_id AND r.type = 'chargeback_resolved')
  WHERE type = 'chargeback_opened' AND status = 'pending' AND EXISTS (SELECT 1 FROM card_transactions r WHERE r.workspace_id = card_transactions.workspace_id AND r.supplier_txn_id = card_transactions.supplier_txn_id AND r.type = 'chargeback_resolved');
-- The open probes, which the scheduler expires.
CREATE INDEX card_transactions_open_probes ON card_transactions (occurred_at) WHERE type = 'authorization' AND status = 'pending' AND amount = '0.00';
CREATE INDEX card_transactions_workspace_purchase ON card_transactions (workspace_id, supplier_txn_id, id);

-- D33: an idempotency key is looked up per workspace, whatever the operation.
CREATE INDEX idempotency_keys_workspace_key ON idempotency_keys (workspace_id, key);

-- PAN and CVV are kept only until card.issued.secrets is encrypted (or known not to be sent): the delivery
-- worker deletes the job once it recorded (or skipped) the event, and the secrets go with it.
CREATE TRIGGER card_secrets_purge_after_job AFTER DELETE ON secrets_event_jobs
BEGIN
  DELETE FROM card_secrets WHERE card_uuid = OLD.card_uuid;
END;
DELETE FROM card_secrets
  WHERE card_uuid NOT IN (SELECT card_uuid FROM secrets_event_jobs)
    AND card_uuid NOT IN (SELECT uuid FROM cards WHERE status = 'pending_issue');
`,
  },
  {
    version: 7,
    name: 'token expiry, the account holder on file, the issue-fee reading of a product',
    sql: `
-- D18: a token created with a lifetime answers 401 from this sandbox time on; NULL never expires.
ALTER TABLE api_tokens ADD COLUMN expires_at TEXT;

-- D41: the account holder on file; a product without supports_custom_holder_name issues cards in this name only.
ALTER TABLE workspaces ADD COLUMN holder_first_name TEXT NOT NULL DEFAULT 'Ada';
ALTER TABLE workspaces ADD COLUMN holder_last_name TEXT NOT NULL DEFAULT 'Lovelace';

-- D21: the issue fee held on top of the initial top-up (the POST /cards money effect), or deducted from it
-- (section 2.1 of the contract); a sandbox setting per product.
ALTER TABLE card_products ADD COLUMN issue_fee_mode TEXT NOT NULL DEFAULT 'on_top' CHECK (issue_fee_mode IN ('on_top', 'deducted'));
`,
  },
  {
    version: 8,
    name: 'transient order failures retried, withdrawals, wallet freezes',
    sql: `
-- D42: a transient forced failure (supplier5xx, timeout, network, signature) fails that many supplier attempts;
-- the order retries on the sandbox clock and waits in awaiting_platform once the retry budget is spent.
ALTER TABLE forced_failures ADD COLUMN attempts INTEGER;
ALTER TABLE orders ADD COLUMN forced_failure_attempts INTEGER;
ALTER TABLE orders ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;

-- D45: withdrawals out of the wallet (withdrawal_held, then completed, canceled or rejected).
CREATE TABLE withdrawals (
  id INTEGER PRIMARY KEY,
  uuid TEXT NOT NULL UNIQUE,
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
  currency TEXT NOT NULL,
  amount TEXT NOT NULL,
  fee TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('held', 'completed', 'canceled', 'rejected')),
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL
);

-- D47: a frozen wallet (one currency of a workspace).
CREATE TABLE wallet_freezes (
  workspace_id INTEGER NOT NULL REFERENCES workspaces(id),
  currency TEXT NOT NULL,
  frozen_at TEXT NOT NULL,
  frozen_reason TEXT,
  PRIMARY KEY (workspace_id, currency)
);
`,
  },
  {
    version: 9,
    name: 'delivery claims that lapse, for replicas on one database',
    sql: `
-- Real time (epoch ms) at which a 'sending' row's claim lapses: on a database shared by several sandbox processes
-- (PostgreSQL replicas), a row still 'sending' past it was claimed by a process that died mid-attempt, and another
-- one sends it again. NULL for rows claimed before this column existed.
ALTER TABLE webhook_deliveries ADD COLUMN claim_expires_at_ms INTEGER;
`,
  },
];
