import { referenceCached, type Context } from './context.js';
import { SandboxError } from './errors.js';
import { requireWorkspace } from './ledger.js';
import type { BillingAddress, CardProduct } from './types.js';

/** A card product row as stored (platform-global, not yet annotated). */
export interface ProductRow {
  id: number;
  code: string;
  display_name: string;
  description: string;
  currency: string;
  bin: string;
  issuer_country: string;
  supports_custom_holder_name: number;
  supports_custom_billing_address: number;
  default_billing_address: string | null;
  card_issue_fixed: string;
  topup_fixed: string;
  topup_percent: string;
  min_initial_topup_amount: string;
  min_topup_amount: string;
  required_subscription_product_code: string | null;
  /** Capabilities of the product's cards (D31), 0 or 1. */
  supports_freeze: number;
  supports_unfreeze: number;
  supports_balance_query: number;
  /** D21: the issue fee held on top of the initial top-up (default), or deducted from it (contract 2.1). */
  issue_fee_mode: IssueFeeMode;
}

/** How a product charges `card_issue_fixed` (D21): the `POST /cards` money effect, or section 2.1's reading. */
export type IssueFeeMode = 'on_top' | 'deducted';

/** A product's sandbox settings, as the control API answers them. */
export interface ProductSettings {
  id: number;
  code: string;
  issue_fee: IssueFeeMode;
}

/**
 * Switches how a product charges its issue fee, for issue orders accepted from now on (the catalogue is
 * platform-global: every workspace of the sandbox sees the change). 404 for an unknown product.
 */
export function setIssueFeeMode(ctx: Context, productId: number, mode: IssueFeeMode): ProductSettings {
  if (mode !== 'on_top' && mode !== 'deducted') throw new SandboxError(422, 'validation.failed', 'The issue fee is on_top or deducted.', { issue_fee: ['must be on_top or deducted'] });
  return ctx.write(() => {
    const product = Number.isSafeInteger(productId) ? loadProduct(ctx, productId) : undefined;
    if (product === undefined) throw new SandboxError(404, 'api.not_found', `No card product ${String(productId)}.`);
    ctx.db.prepare('UPDATE card_products SET issue_fee_mode = ? WHERE id = ?').run(mode, product.id);
    return { id: product.id, code: product.code, issue_fee: mode };
  });
}

/** Loads one stored product (cached between changes of the reference tables; read-only). */
export const loadProduct: (ctx: Context, id: number) => Readonly<ProductRow> | undefined = referenceCached((ctx: Context, id: number) =>
  ctx.db.prepare<[number], ProductRow>('SELECT * FROM card_products WHERE id = ?').get(id),
);

/** Annotates a product for one workspace (contract 2.1): `available` equals `subscription_satisfied`. */
export function annotateProduct(row: ProductRow, baseCurrency: string, subscriptions: ReadonlySet<string>): CardProduct {
  const required = row.required_subscription_product_code;
  const satisfied = required === null || subscriptions.has(required);
  return {
    id: row.id,
    code: row.code,
    display_name: row.display_name,
    description: row.description,
    currency: row.currency,
    bin: row.bin,
    issuer_country: row.issuer_country,
    supports_custom_holder_name: row.supports_custom_holder_name === 1,
    supports_custom_billing_address: row.supports_custom_billing_address === 1,
    default_billing_address: row.default_billing_address === null ? null : (JSON.parse(row.default_billing_address) as BillingAddress),
    fees: { card_issue_fixed: row.card_issue_fixed, topup_fixed: row.topup_fixed, topup_percent: row.topup_percent },
    min_initial_topup_amount: row.min_initial_topup_amount,
    min_topup_amount: row.min_topup_amount,
    required_subscription_product_code: required,
    requires_subscription: required !== null,
    subscription_satisfied: satisfied,
    currency_match: row.currency === baseCurrency,
    available: satisfied,
  };
}

/** The workspace's subscription product codes (cached between changes of the reference tables). */
export const subscriptionsOf: (ctx: Context, workspaceId: number) => ReadonlySet<string> = referenceCached(
  (ctx: Context, workspaceId: number) => new Set(ctx.db.prepare<[number], { product_code: string }>('SELECT product_code FROM workspace_subscriptions WHERE workspace_id = ?').all(workspaceId).map((r) => r.product_code)),
);

/** `GET /card-products`. */
export interface CatalogueService {
  /** Every product, by id, annotated for the workspace (contract 2.1). Not paginated. */
  list(workspaceId: number): CardProduct[];
}

export function createCatalogueService(ctx: Context): CatalogueService {
  return {
    list(workspaceId) {
      return ctx.read(() => {
        const ws = requireWorkspace(ctx, workspaceId);
        const subs = subscriptionsOf(ctx, workspaceId);
        return ctx.db.prepare<[], ProductRow>('SELECT * FROM card_products ORDER BY id').all().map((row) => annotateProduct(row, ws.base_currency, subs));
      });
    },
  };
}
