/**
 * The sandbox control API (`spec/sandbox/control.yaml`) over the sandbox's domain services: one handler per
 * operation of the generated `SandboxControlHandlers`. Every handler acts on the workspace of the bearer token;
 * a `SandboxError` becomes an `ApiError` with the same status, code, message and field errors.
 */
import { ApiError, type AuthResult } from '@card-api/server';
import type { Sandbox } from '../sandbox.js';
import { domain, toApiError } from '../http/handlers.js';
import { ABILITIES, type CardTransaction, type CreateCardBody, type CreatedWebhookEndpoint, type OrderFailureReason, type WebhookEndpoint, type Workspace } from '../types.js';
import type { CreatedToken } from '../workspaces.js';
import type { components } from './types.gen.js';
import type { SandboxControlHandlers } from './handlers.gen.js';

type Schemas = components['schemas'];

/** What the control API's `authenticate` resolves a token to. */
export interface ControlAuth extends AuthResult {
  /** The token's workspace as stored (its real status; the runtime's `workspace.status` is always `active`). */
  readonly sandboxWorkspace: Workspace;
  readonly tokenId: number;
}

/**
 * The control API's `authenticate`: any unrevoked token of the workspace, whatever its abilities, its IP
 * allowlist and its workspace's status (so that a frozen workspace can be made active again here). The runtime
 * sees an active workspace, every request, and no allowlist; it never applies the public API's D16 refusals.
 */
export function controlAuthenticate(sandbox: Sandbox): (token: string) => ControlAuth | null {
  return (token) => {
    const resolved = sandbox.auth.resolveToken(token);
    if (resolved === null) return null;
    return {
      workspace: { id: resolved.workspace.id, status: 'active' },
      abilities: [],
      ipAllowlist: [],
      sandboxWorkspace: resolved.workspace,
      tokenId: resolved.tokenId,
    };
  };
}

function tokenBody(created: CreatedToken): Schemas['CreatedToken'] {
  return {
    id: created.id,
    token: created.token,
    name: created.name,
    abilities: [...created.abilities],
    ip_allowlist: [...created.ipAllowlist],
    rate_limit_per_minute: created.rateLimitPerMinute,
    expires_at: created.expires_at,
    created_at: created.created_at,
  };
}

function endpointBody(endpoint: WebhookEndpoint): Schemas['WebhookEndpoint'] {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events === '*' ? '*' : [...endpoint.events],
    status: endpoint.status,
    disabled_reason: endpoint.disabled_reason,
    description: endpoint.description,
    created_at: endpoint.created_at,
    disabled_at: endpoint.disabled_at,
  };
}

function createdEndpointBody(endpoint: CreatedWebhookEndpoint): Schemas['CreatedWebhookEndpoint'] {
  return { ...endpointBody(endpoint), secret: endpoint.secret };
}

/** The row as the public `CardTransaction` schema types it (the domain's row has the same fields, `supplier_txn_id` always set). */
function transactionBody(row: CardTransaction): Schemas['TransactionResponse'] {
  return { data: { ...(row as Schemas['CardTransaction']), supplier_txn_id: row.supplier_txn_id } };
}

/**
 * Every operation of the control API, bound to one sandbox.
 *
 * @example
 * await app.register(sandboxControl, { prefix: '', handlers: controlHandlers(sandbox), authenticate: controlAuthenticate(sandbox), rateLimit: false });
 */
export function controlHandlers(sandbox: Sandbox): SandboxControlHandlers<ControlAuth> {
  const ws = (auth: ControlAuth): number => auth.sandboxWorkspace.id;
  /** The card, in the token's workspace (404 otherwise), in its public shape. */
  const card = (auth: ControlAuth, uuid: string) => domain(() => sandbox.cards.get(ws(auth), uuid));

  return {
    createWorkspace: ({ body }) =>
      domain(() => {
        const workspace = sandbox.admin.createWorkspace({
          name: body.name,
          ...(body.slug !== undefined ? { slug: body.slug } : {}),
          ...(body.base_currency !== undefined ? { baseCurrency: body.base_currency } : {}),
          ...(body.holder_first_name !== undefined ? { holderFirstName: body.holder_first_name } : {}),
          ...(body.holder_last_name !== undefined ? { holderLastName: body.holder_last_name } : {}),
        });
        if (body.initial_deposit !== undefined) sandbox.admin.deposit(workspace.id, { amount: body.initial_deposit, description: 'Sandbox initial deposit' });
        const token = sandbox.admin.createToken(workspace.id, { name: `${workspace.name} token`, abilities: [...ABILITIES] });
        return { status: 201, body: { data: { workspace, token: tokenBody(token) } } };
      }),

    getWorkspace: ({ auth }) => ({ data: auth.sandboxWorkspace }),

    updateWorkspace: ({ auth, body }) => ({ data: domain(() => sandbox.admin.setWorkspaceStatus(ws(auth), body.status)) }),

    createToken: ({ auth, body }) =>
      domain(() => {
        const token = sandbox.admin.createToken(ws(auth), {
          name: body.name,
          abilities: [...body.abilities],
          ...(body.ip_allowlist !== undefined ? { ipAllowlist: [...body.ip_allowlist] } : {}),
          ...(body.rate_limit_per_minute !== undefined ? { rateLimitPerMinute: body.rate_limit_per_minute } : {}),
          ...(body.expires_in_seconds !== undefined ? { expiresInSeconds: body.expires_in_seconds } : {}),
        });
        return { status: 201, body: { data: tokenBody(token) } };
      }),

    revokeToken: ({ auth, params }) => {
      domain(() => sandbox.admin.revokeToken(params.token_id, ws(auth)));
      return { data: { id: params.token_id, revoked: true } };
    },

    createDeposit: ({ auth, body }) =>
      domain(() => {
        const wallet = sandbox.admin.deposit(ws(auth), {
          amount: body.amount,
          ...(body.currency !== undefined ? { currency: body.currency } : {}),
          ...(body.fee !== undefined ? { fee: body.fee } : {}),
          ...(body.description !== undefined ? { description: body.description } : {}),
        });
        return { status: 201, body: { data: wallet } };
      }),

    updateCardProduct: ({ params, body }) => ({ data: domain(() => sandbox.admin.setIssueFeeMode(params.id, body.issue_fee)) }),

    listWebhookEndpoints: ({ auth }) => ({ data: domain(() => sandbox.webhooks.listEndpoints(ws(auth))).map(endpointBody) }),

    createWebhookEndpoint: ({ auth, body }) =>
      domain(() => {
        const created = sandbox.webhooks.registerEndpoint(ws(auth), { url: body.url, events: body.events, description: body.description });
        return { status: 201, body: { data: createdEndpointBody(created) } };
      }),

    disableWebhookEndpoint: ({ auth, params }) => ({ data: endpointBody(domain(() => sandbox.webhooks.disableEndpoint(ws(auth), params.endpoint_id))) }),

    enableWebhookEndpoint: ({ auth, params }) => ({ data: endpointBody(domain(() => sandbox.webhooks.enableEndpoint(ws(auth), params.endpoint_id))) }),

    updateWebhookEndpoint: ({ auth, params, body }) => ({ data: endpointBody(domain(() => sandbox.webhooks.updateEndpoint(ws(auth), params.endpoint_id, body))) }),

    getWebhookEndpointSecret: ({ auth, params }) => ({ data: { id: params.endpoint_id, secret: domain(() => sandbox.webhooks.endpointSecret(ws(auth), params.endpoint_id)) } }),

    redeliverWebhook: async ({ auth, params }) => {
      const delivery = domain(() => sandbox.deliveries.get(params.delivery_id));
      if (delivery.workspace_id !== ws(auth)) throw new ApiError(404, 'api.not_found', `No delivery ${params.delivery_id} in this workspace.`);
      // Answers once the delivery is queued; the attempt goes out in the background.
      const { workspace_id: _workspace, ...after } = domain(() => sandbox.deliveries.resend(delivery.id));
      sandbox.startDue();
      return { data: after };
    },

    listWebhookDeliveries: ({ auth, query }) => ({
      data: domain(() =>
        sandbox.deliveries.list({
          workspaceId: ws(auth),
          ...(query.event !== undefined ? { event: query.event } : {}),
          ...(query.status !== undefined ? { status: query.status } : {}),
          ...(query.endpoint_id !== undefined ? { endpointId: query.endpoint_id } : {}),
          ...(query.event_id !== undefined ? { eventId: query.event_id } : {}),
          ...(query.limit !== undefined ? { limit: query.limit } : {}),
        }),
      ).map(({ workspace_id: _workspace, ...delivery }) => delivery),
    }),

    getPublicKey: ({ auth }) => {
      const key = domain(() => sandbox.webhooks.getPublicKey(ws(auth)));
      return { data: key === null ? null : { public_key_pem: key.public_key_pem, key_fingerprint: key.key_fingerprint, created_at: key.created_at } };
    },

    setPublicKey: ({ auth, body }) => {
      const key = domain(() => sandbox.webhooks.setPublicKey(ws(auth), body.public_key_pem));
      return { data: { public_key_pem: key.public_key_pem, key_fingerprint: key.key_fingerprint, created_at: key.created_at } };
    },

    removePublicKey: ({ auth }) => {
      domain(() => sandbox.webhooks.removePublicKey(ws(auth)));
      return { data: null };
    },

    simulateAuthorization: ({ auth, params, body }) => ({ status: 201, body: transactionBody(domain(() => sandbox.simulate.authorize(ws(auth), params.uuid, body))) }),

    simulateDecline: ({ auth, params, body }) => ({ status: 201, body: transactionBody(domain(() => sandbox.simulate.decline(ws(auth), params.uuid, body))) }),

    simulateCapture: ({ auth, params, body }) => ({ status: 201, body: transactionBody(domain(() => sandbox.simulate.capture(ws(auth), params.supplier_txn_id, body ?? {}))) }),

    simulateReversal: ({ auth, params }) => ({ status: 201, body: transactionBody(domain(() => sandbox.simulate.reverse(ws(auth), params.supplier_txn_id))) }),

    simulateRefund: ({ auth, params, body }) => ({ status: 201, body: transactionBody(domain(() => sandbox.simulate.refund(ws(auth), params.supplier_txn_id, body ?? {}))) }),

    simulateChargeback: ({ auth, params, body }) => ({ status: 201, body: transactionBody(domain(() => sandbox.simulate.chargeback(ws(auth), params.supplier_txn_id, body ?? {}))) }),

    simulateChargebackResolution: ({ auth, params, body }) => ({
      status: 201,
      body: transactionBody(domain(() => sandbox.simulate.resolveChargeback(ws(auth), params.supplier_txn_id, { outcome: body.outcome }))),
    }),

    failNextOrder: ({ auth, body }) => {
      const reason = body.failure_reason as OrderFailureReason;
      const target = body.card_uuid === undefined ? 'next-issue' : card(auth, body.card_uuid).uuid;
      domain(() => sandbox.admin.failNextOrder(target, reason, body.attempts));
      return { status: 201, body: { data: { target, failure_reason: reason } } };
    },

    riskFreezeCard: ({ auth, params, body }) => {
      domain(() => sandbox.risk.freeze(ws(auth), params.uuid, { origin: body.origin, reason: body.reason ?? null, ...(body.appeal_terminated !== undefined ? { appeal_terminated: body.appeal_terminated } : {}) }));
      return { data: card(auth, params.uuid) };
    },

    applyRiskPenalty: ({ auth, params, body }) => ({
      data: domain(() => sandbox.risk.penalty(ws(auth), params.uuid, { amount: body.amount, ...(body.description !== undefined ? { description: body.description } : {}) })),
    }),

    finishClose: ({ auth, params }) => {
      const uuid = card(auth, params.uuid).uuid;
      domain(() => sandbox.admin.finishClose(uuid));
      return { data: card(auth, uuid) };
    },

    resolveOrder: ({ auth, params, body }) => ({ data: domain(() => sandbox.admin.resolveOrder(ws(auth), params.uuid, body.action)) }),

    createStaffCard: ({ auth, body, headers }) => ({
      status: 202,
      body: { data: domain(() => sandbox.cards.create(ws(auth), { ...body, cardholder_type: 'staff' } as CreateCardBody, headers['x-idempotency-key'])) },
    }),

    createWithdrawal: ({ auth, body }) => ({ status: 201, body: { data: domain(() => sandbox.admin.withdraw(ws(auth), body)) } }),

    updateWithdrawal: ({ auth, params, body }) => ({ data: domain(() => sandbox.admin.settleWithdrawal(ws(auth), params.uuid, body.status)) }),

    createSubscription: ({ auth, body }) => ({ status: 201, body: { data: domain(() => sandbox.admin.subscribe(ws(auth), body)) } }),

    createLedgerAdjustment: ({ auth, body }) => ({ status: 201, body: { data: { txn_group_id: domain(() => sandbox.admin.adjust(ws(auth), body)) } } }),

    createLedgerReversal: ({ auth, params, body }) => ({ status: 201, body: { data: { txn_group_id: domain(() => sandbox.admin.reverse(ws(auth), params.txn_group_id, body?.description)) } } }),

    updateWallet: ({ auth, body }) =>
      domain(() => {
        sandbox.admin.setWalletFrozen(ws(auth), body);
        return { data: sandbox.wallet.get(ws(auth)) };
      }),

    simulateUnmatched: ({ auth, params, body }) => ({ status: 201, body: transactionBody(domain(() => sandbox.simulate.unmatched(ws(auth), params.uuid, body))) }),

    getClock: () => ({ data: { now: sandbox.clock.now().toISOString() } }),

    advanceClock: async ({ body }) => {
      if (sandbox.clock.advance === undefined) throw new ApiError(422, 'validation.failed', 'This sandbox runs on a clock that cannot be moved.', { seconds: ['the clock cannot be advanced'] });
      // Answers once the due work is scheduled: order steps and closes run on the way, deliveries (and their
      // retries inside the span) go out in the background; the delivery list shows their progress.
      domain(() => sandbox.advanceInBackground(body.seconds * 1000));
      return { data: { now: sandbox.clock.now().toISOString() } };
    },
  };
}
