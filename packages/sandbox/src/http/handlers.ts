/**
 * The 15 operations of the Card Issuing API over the sandbox's domain services, as the typed handlers of the
 * generated Fastify plugin. Each handler passes the authenticated workspace, the validated input and the
 * idempotency key to one service call; a `SandboxError` becomes an `ApiError` with the same status, code,
 * message and field errors, so a domain refusal is never a 500.
 */
import { ApiError, type CardApiHandlers } from '@card-api/server';
import type { FastifyRequest } from 'fastify';
import { isStorageFull, MEMORY_DATABASE_LIMIT_BYTES } from '../store/index.js';
import { SandboxError } from '../errors.js';
import type { Sandbox } from '../sandbox.js';
import type { CreateCardBody, ReasonBody, TopupBody } from '../types.js';
import type { SandboxAuth } from './auth.js';

/** Options of {@link sandboxHandlers}. */
export interface SandboxHandlerOptions {
  /** The prefix the plugin is registered under; pagination links start with it. Default `/api/v1`. */
  prefix?: string;
  /**
   * Origin of the pagination links, such as `http://127.0.0.1:4010`. Default: taken from each request
   * (its protocol and `Host`), so links are absolute URLs whatever address the caller used.
   */
  origin?: string;
}

/** The 503 message of a write refused because the database cannot grow (see `openSqliteStore` in store/sqlite.ts). */
export const DATABASE_FULL = `The sandbox database is full and the request changed nothing: an in-memory sandbox holds at most ${MEMORY_DATABASE_LIMIT_BYTES / 1024 ** 3} GiB (start it with --db <file> to keep more), and a file database needs free disk space.`;

/** Runs a domain call, turning its `SandboxError` into the plugin's `ApiError` (same status, code, message, fields). */
export function domain<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    throw toApiError(error);
  }
}

/** The `{ data }` envelope of each shared (frozen) domain object, itself frozen and made once per object. */
const envelopes = new WeakMap<object, Readonly<{ data: unknown }>>();

/**
 * `{ data: value }` for a value the domain shares between reads until the next commit: the same frozen envelope
 * each time, so that the plugin validates and serializes an unchanged body once.
 */
function sharedEnvelope<T extends object>(value: Readonly<T>): Readonly<{ data: Readonly<T> }> {
  let envelope = envelopes.get(value);
  if (envelope === undefined) {
    envelope = Object.freeze({ data: value });
    envelopes.set(value, envelope);
  }
  return envelope as Readonly<{ data: Readonly<T> }>;
}

/** The `ApiError` for a `SandboxError`; any other value is returned as is (the plugin answers it 500). */
export function toApiError(error: unknown): unknown {
  if (error instanceof SandboxError) return new ApiError(error.status, error.code, error.message, error.fieldErrors);
  // Nothing was written (the transaction rolled back); the caller can only make room, so it is told how.
  if (isStorageFull(error)) return new ApiError(503, 'api.internal_error', DATABASE_FULL);
  return error;
}

/** The idempotency key header, when a single one was sent (the plugin has already checked its D7 format). */
function idempotencyKey(headers: Record<string, unknown>): string | undefined {
  const key = headers['x-idempotency-key'];
  return typeof key === 'string' ? key : undefined;
}

/**
 * Every operation of `CardApiHandlers`, bound to one sandbox.
 *
 * @example
 * await app.register(cardApiFor<SandboxAuth>(), {
 *   prefix: '/api/v1',
 *   handlers: sandboxHandlers(sandbox),
 *   authenticate: sandboxAuthenticate(sandbox),
 *   rateLimit: { limiter: sandboxRateLimiter(sandbox) },
 * });
 */
export function sandboxHandlers(sandbox: Sandbox, options: SandboxHandlerOptions = {}): CardApiHandlers<SandboxAuth> {
  const prefix = (options.prefix ?? '/api/v1').replace(/\/+$/, '');
  const origin = options.origin?.replace(/\/+$/, '');
  /** Absolute URL of a list route, the base of its `links`. */
  const base = (request: FastifyRequest, path: string): string => `${origin ?? `${request.protocol}://${request.host}`}${prefix}${path}`;

  return {
    ping: ({ auth }) => ({ data: { workspace_slug: auth.workspace.slug, workspace_name: auth.workspace.name, abilities: [...auth.abilities] } }),

    listCardProducts: ({ auth }) => ({ data: domain(() => sandbox.catalogue.list(auth.workspace.id)) }),

    listCards: ({ auth, query, request }) => domain(() => sandbox.cards.list(auth.workspace.id, query, base(request, '/cards'))),

    getCard: ({ auth, params }) => sharedEnvelope(domain(() => sandbox.cards.getShared(auth.workspace.id, params.uuid))),

    listCardTransactions: ({ auth, params, query, request }) =>
      domain(() => sandbox.cards.listTransactions(auth.workspace.id, params.uuid, query, base(request, `/cards/${encodeURIComponent(params.uuid)}/transactions`))),

    listCardConsumptionBills: ({ auth, params, query, request }) =>
      domain(() => sandbox.cards.listConsumptionBills(auth.workspace.id, params.uuid, query, base(request, `/cards/${encodeURIComponent(params.uuid)}/consumption-bills`))),

    createCard: ({ auth, body, headers }) => ({ data: domain(() => sandbox.cards.create(auth.workspace.id, body as CreateCardBody, idempotencyKey(headers))) }),

    topupCard: ({ auth, params, body, headers }) => ({ data: domain(() => sandbox.cards.topup(auth.workspace.id, params.uuid, body as TopupBody, idempotencyKey(headers))) }),

    freezeCard: ({ auth, params, body, headers }) => ({ data: domain(() => sandbox.cards.freeze(auth.workspace.id, params.uuid, (body ?? null) as ReasonBody | null, idempotencyKey(headers))) }),

    unfreezeCard: ({ auth, params, body, headers }) => ({ data: domain(() => sandbox.cards.unfreeze(auth.workspace.id, params.uuid, (body ?? null) as ReasonBody | null, idempotencyKey(headers))) }),

    closeCard: ({ auth, params, body, headers }) => ({ data: domain(() => sandbox.cards.close(auth.workspace.id, params.uuid, (body ?? null) as ReasonBody | null, idempotencyKey(headers))) }),

    listOrders: ({ auth, query, request }) => domain(() => sandbox.orders.list(auth.workspace.id, query, base(request, '/orders'))),

    getOrder: ({ auth, params }) => ({ data: domain(() => sandbox.orders.get(auth.workspace.id, params.uuid)) }),

    getWallet: ({ auth }) => ({ data: domain(() => sandbox.wallet.get(auth.workspace.id)) }),

    listLedgerEntries: ({ auth, query, request }) => domain(() => sandbox.ledger.list(auth.workspace.id, query, base(request, '/transactions'))),
  };
}
