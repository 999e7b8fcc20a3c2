/**
 * Realistic server faults for the verify mutation harness: each is injected by a proxy in front of an unmodified
 * sandbox (the REST side) or between its webhook deliveries and verify's receiver (the delivery side), one per
 * run. `scripts/verify-mutants.ts` runs them all and prints caught / total; test/verify/mutants.test.ts runs a
 * subset. A mutant touches only what its fault needs, so the rest of the answer stays the sandbox's.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

type Json = Record<string, any>;

export interface ProxyRequest {
  method: string;
  /** Path below the API root (`/cards/…`) and the query. */
  route: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface ProxyAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** What a REST mutant may do: change the request, answer on its own, or ask the sandbox again (`send`). */
export interface RestContext {
  tokens: { main: string; readOnly?: string; other?: string };
  send: (request: ProxyRequest) => Promise<ProxyAnswer>;
  state: Map<string, unknown>;
}

export interface Delivery {
  event: Json;
  body: Buffer;
  signature: string;
  secret: string;
}

export interface Mutant {
  name: string;
  kind: 'http' | 'money' | 'authorization' | 'isolation' | 'defaults' | 'idempotency' | 'webhook-signing' | 'ids-ordering' | 'state';
  /** Replaces the exchange with the sandbox: return the answer verify gets. */
  rest?: (request: ProxyRequest, ctx: RestContext) => Promise<ProxyAnswer>;
  /** Replaces a delivery: return what reaches verify's receiver (several for duplicates), or [] to drop it. */
  hook?: (delivery: Delivery, state: Map<string, unknown>) => Array<{ body: Buffer; signature: string }>;
}

const json = (a: ProxyAnswer): Json | null => {
  try {
    return JSON.parse(a.body.toString('utf8')) as Json;
  } catch {
    return null;
  }
};
const withJson = (a: ProxyAnswer, body: unknown, status = a.status): ProxyAnswer => ({ status, headers: a.headers, body: Buffer.from(JSON.stringify(body)) });
const bearer = (r: ProxyRequest) => String(r.headers.authorization ?? '').replace(/^Bearer /, '');
const asToken = (r: ProxyRequest, token: string): ProxyRequest => ({ ...r, headers: { ...r.headers, authorization: `Bearer ${token}` } });
const sign = (body: Buffer | string, secret: string, t: string) => `t=${t},v1=${createHmac('sha256', secret).update(`${t}.`).update(body).digest('hex')}`;
const now = () => String(Math.floor(Date.now() / 1000));
const cardAction = /^\/cards\/[^/]+\/(freeze|unfreeze|close|topup)$/;

/** Edits the JSON of successful answers on routes matching `route`. */
function editJson(route: RegExp, edit: (body: Json, r: ProxyRequest) => void, method = 'GET'): Mutant['rest'] {
  return async (r, ctx) => {
    const a = await ctx.send(r);
    const body = json(a);
    if (r.method !== method || !route.test(r.route) || a.status >= 300 || !body) return a;
    edit(body, r);
    return withJson(a, body);
  };
}

export const MUTANTS: Mutant[] = [
  // HTTP answers.
  {
    name: 'freeze without a body answers 500',
    kind: 'http',
    rest: async (r, ctx) => (r.method === 'POST' && /\/freeze$/.test(r.route) && r.body.length === 0 ? withJson(await ctx.send(r), { error: { code: 'api.internal_error', message: 'Cannot read properties of undefined', request_id: r.headers['x-verify-request-id'] ?? null } }, 500) : ctx.send(r)),
  },
  {
    name: 'an unknown query parameter answers 500',
    kind: 'http',
    rest: async (r, ctx) => {
      const a = await ctx.send(r);
      const known = new Set(['page', 'per_page', 'status', 'type', 'cardholder_type', 'search', 'from', 'to', 'reason', 'reference_type', 'reference_uuid']);
      return [...r.query.keys()].some((k) => !known.has(k)) ? withJson(a, { error: { code: 'api.internal_error', message: 'unexpected parameter', request_id: json(a)?.error?.request_id ?? null } }, 500) : a;
    },
  },
  {
    name: 'malformed JSON answers 500',
    kind: 'http',
    rest: async (r, ctx) => {
      const a = await ctx.send(r);
      return json(a)?.error?.errors?.body?.[0]?.includes('not valid JSON') ? withJson(a, { error: { ...json(a)!.error, code: 'api.internal_error' } }, 500) : a;
    },
  },
  {
    name: 'a body of another content type is parsed anyway (accepted)',
    kind: 'http',
    rest: async (r, ctx) => (r.method === 'POST' && r.body.length > 0 && !String(r.headers['content-type'] ?? '').startsWith('application/json') ? ctx.send({ ...r, headers: { ...r.headers, 'content-type': 'application/json' } }) : ctx.send(r)),
  },
  {
    name: 'a reason longer than 500 characters is truncated, not refused',
    kind: 'http',
    rest: async (r, ctx) => {
      if (r.method !== 'POST' || !cardAction.test(r.route) || r.body.length === 0) return ctx.send(r);
      try {
        const body = JSON.parse(r.body.toString('utf8')) as Json;
        if (typeof body?.reason === 'string' && body.reason.length > 500) return ctx.send({ ...r, body: Buffer.from(JSON.stringify({ ...body, reason: body.reason.slice(0, 500) })) });
      } catch {
        // Not JSON: the sandbox refuses it.
      }
      return ctx.send(r);
    },
  },
  {
    name: 'validation errors answer 400 instead of 422',
    kind: 'http',
    rest: async (r, ctx) => {
      const a = await ctx.send(r);
      return a.status === 422 && json(a)?.error?.code === 'validation.failed' ? { ...a, status: 400 } : a;
    },
  },
  {
    name: 'a flattened error envelope (code at the top level)',
    kind: 'http',
    rest: async (r, ctx) => {
      const a = await ctx.send(r);
      const body = json(a);
      return a.status >= 400 && body?.error ? withJson(a, body.error) : a;
    },
  },
  {
    name: 'per_page 100 (the declared maximum) answers 500',
    kind: 'http',
    rest: async (r, ctx) => (r.query.get('per_page') === '100' ? withJson(await ctx.send(r), { error: { code: 'api.internal_error', message: 'page too large', request_id: null } }, 500) : ctx.send(r)),
  },
  // Defaults.
  {
    name: 'per_page defaults to 15 on /orders',
    kind: 'defaults',
    rest: async (r, ctx) => (r.method === 'GET' && r.route.split('?')[0] === '/orders' && !r.query.has('per_page') ? ctx.send({ ...r, query: new URLSearchParams([...r.query, ['per_page', '15']]) }) : ctx.send(r)),
  },
  {
    name: 'per_page defaults to 20 on /transactions',
    kind: 'defaults',
    rest: async (r, ctx) => (r.method === 'GET' && r.route.split('?')[0] === '/transactions' && !r.query.has('per_page') ? ctx.send({ ...r, query: new URLSearchParams([...r.query, ['per_page', '20']]) }) : ctx.send(r)),
  },
  // Money.
  {
    name: 'wallet available ignores held_balance',
    kind: 'money',
    rest: editJson(/^\/wallet$/, (b) => {
      for (const w of b.data?.wallets ?? []) w.available = w.balance;
    }),
  },
  {
    name: 'ledger debit and credit swapped',
    kind: 'money',
    rest: editJson(/^\/transactions$/, (b) => {
      for (const row of b.data ?? []) row.direction = row.direction === 'debit' ? 'credit' : 'debit';
    }),
  },
  {
    name: 'ledger debits listed as negative amounts',
    kind: 'money',
    rest: editJson(/^\/transactions$/, (b) => {
      for (const row of b.data ?? []) if (row.direction === 'debit') row.amount = `-${row.amount}`;
    }),
  },
  {
    name: 'a ledger fee row listed with the wrong amount',
    kind: 'money',
    rest: editJson(/^\/transactions$/, (b) => {
      for (const row of b.data ?? []) if (String(row.reason_code).endsWith('_fee') && row.direction === 'credit') row.amount = (Number(row.amount) + 1).toFixed(2);
    }),
  },
  {
    name: 'a pending order\'s hold does not show in the wallet',
    kind: 'money',
    rest: editJson(/^\/wallet$/, (b) => {
      for (const w of b.data?.wallets ?? []) {
        w.held_balance = '0.00';
        w.available = w.balance;
      }
    }),
  },
  {
    name: 'card available_balance off by one',
    kind: 'money',
    rest: editJson(/^\/cards\/[^/]+$/, (b) => {
      if (b.data && typeof b.data.available_balance === 'string') b.data.available_balance = (Number(b.data.available_balance) + 1).toFixed(2);
    }),
  },
  {
    name: 'the top-up hold leaves out the percentage fee',
    kind: 'money',
    rest: async (r, ctx) => {
      const a = await ctx.send(r);
      const body = json(a);
      if (r.method !== 'POST' || !/\/topup$/.test(r.route) || a.status !== 202 || !body?.data) return a;
      const amount = JSON.parse(r.body.toString('utf8')).amount as string;
      ctx.state.set(body.data.uuid, true);
      body.data.held_amount = (Number(amount) + 1).toFixed(2);
      return withJson(a, body);
    },
  },
  {
    name: 'card.closed refunds one unit less than the card balance',
    kind: 'money',
    hook: (d) => {
      if (d.event.event !== 'card.closed') return [{ body: d.body, signature: d.signature }];
      const e = { ...d.event, data: { ...d.event.data, refund_amount: (Number(d.event.data.refund_amount) - 1).toFixed(2) } };
      const body = Buffer.from(JSON.stringify(e));
      return [{ body, signature: sign(body, d.secret, now()) }];
    },
  },
  // Authorization.
  {
    name: 'a read-only token can write (abilities ignored on writes)',
    kind: 'authorization',
    rest: async (r, ctx) => (r.method === 'POST' && ctx.tokens.readOnly && bearer(r) === ctx.tokens.readOnly ? ctx.send(asToken(r, ctx.tokens.main)) : ctx.send(r)),
  },
  {
    name: 'a read-only token is refused a read it may do (/wallet)',
    kind: 'authorization',
    rest: async (r, ctx) => {
      const a = await ctx.send(r);
      return r.route === '/wallet' && ctx.tokens.readOnly && bearer(r) === ctx.tokens.readOnly ? withJson(a, { error: { code: 'api.insufficient_ability', message: 'no', request_id: json(a)?.error?.request_id ?? null } }, 403) : a;
    },
  },
  {
    name: 'no token on /wallet is served',
    kind: 'authorization',
    rest: async (r, ctx) => (r.route === '/wallet' && !r.headers.authorization ? ctx.send(asToken(r, ctx.tokens.main)) : ctx.send(r)),
  },
  {
    name: 'an unknown token on GET /orders/{uuid} is served',
    kind: 'authorization',
    rest: async (r, ctx) => (/^\/orders\/[^/]+$/.test(r.route) && r.headers.authorization && ![ctx.tokens.main, ctx.tokens.readOnly, ctx.tokens.other].includes(bearer(r)) ? ctx.send(asToken(r, ctx.tokens.main)) : ctx.send(r)),
  },
  // Isolation.
  {
    name: 'another workspace reads this workspace\'s cards by uuid',
    kind: 'isolation',
    rest: async (r, ctx) => {
      const a = await ctx.send(r);
      return ctx.tokens.other && bearer(r) === ctx.tokens.other && /^\/cards\/[^/]+$/.test(r.route) && a.status === 404 ? ctx.send(asToken(r, ctx.tokens.main)) : a;
    },
  },
  {
    name: 'another workspace\'s order list holds this workspace\'s orders',
    kind: 'isolation',
    rest: async (r, ctx) => (ctx.tokens.other && bearer(r) === ctx.tokens.other && r.route === '/orders' ? ctx.send(asToken(r, ctx.tokens.main)) : ctx.send(r)),
  },
  {
    name: 'another workspace can act on this workspace\'s card',
    kind: 'isolation',
    rest: async (r, ctx) => {
      const a = await ctx.send(r);
      return ctx.tokens.other && bearer(r) === ctx.tokens.other && r.method === 'POST' && cardAction.test(r.route) && a.status === 404 ? ctx.send(asToken(r, ctx.tokens.main)) : a;
    },
  },
  // Idempotency.
  {
    name: 'a top-up replay makes a second order',
    kind: 'idempotency',
    rest: async (r, ctx) => {
      if (r.method !== 'POST' || !/\/topup$/.test(r.route)) return ctx.send(r);
      const key = String(r.headers['x-idempotency-key'] ?? '');
      if (ctx.state.has(`topup:${key}`)) return ctx.send({ ...r, headers: { ...r.headers, 'x-idempotency-key': `${key}-again` } });
      ctx.state.set(`topup:${key}`, true);
      return ctx.send(r);
    },
  },
  {
    name: 'a freeze replay answers 409 instead of the same order',
    kind: 'idempotency',
    rest: async (r, ctx) => {
      if (r.method !== 'POST' || !/\/freeze$/.test(r.route)) return ctx.send(r);
      const key = String(r.headers['x-idempotency-key'] ?? '');
      if (ctx.state.has(`freeze:${key}`)) return ctx.send({ ...r, headers: { ...r.headers, 'x-idempotency-key': randomUUID() } });
      ctx.state.set(`freeze:${key}`, true);
      return ctx.send(r);
    },
  },
  {
    name: 'an idempotency key is scoped to one endpoint',
    kind: 'idempotency',
    rest: async (r, ctx) => {
      const key = r.headers['x-idempotency-key'];
      if (r.method !== 'POST' || typeof key !== 'string') return ctx.send(r);
      const route = ctx.state.get(`route:${key}`);
      if (route === undefined) ctx.state.set(`route:${key}`, r.route);
      return route !== undefined && route !== r.route ? ctx.send({ ...r, headers: { ...r.headers, 'x-idempotency-key': `${key}@${r.route}` } }) : ctx.send(r);
    },
  },
  // Ids and ordering.
  {
    name: 'orders listed oldest first',
    kind: 'ids-ordering',
    rest: editJson(/^\/orders$/, (b) => {
      if (Array.isArray(b.data)) b.data.reverse();
    }),
  },
  {
    name: 'GET /orders/{uuid} answers with the uuid upper-cased',
    kind: 'ids-ordering',
    rest: editJson(/^\/orders\/[^/]+$/, (b) => {
      if (b.data?.uuid) b.data.uuid = String(b.data.uuid).toUpperCase();
    }),
  },
  {
    name: 'a redelivery carries a new event_id',
    kind: 'ids-ordering',
    hook: (d, state) => {
      const id = d.event.event_id;
      const seen = state.get(`event:${id}`) as number | undefined;
      state.set(`event:${id}`, (seen ?? 0) + 1);
      if (seen === undefined) return [{ body: d.body, signature: d.signature }];
      const body = Buffer.from(JSON.stringify({ ...d.event, event_id: Number(id) + 100_000 }));
      return [{ body, signature: sign(body, d.secret, now()) }];
    },
  },
  // State.
  {
    name: 'a closed card accepts a freeze',
    kind: 'state',
    rest: async (r, ctx) => {
      const a = await ctx.send(r);
      if (r.method !== 'POST' || !/\/freeze$/.test(r.route) || a.status !== 409) return a;
      const card = json(await ctx.send({ ...r, method: 'GET', route: r.route.replace(/\/freeze$/, ''), body: Buffer.alloc(0), query: new URLSearchParams() }));
      if (!['closed', 'pending_close'].includes(card?.data?.status)) return a;
      return withJson(a, { data: { uuid: randomUUID(), type: 'freeze', status: 'pending', related_card_uuid: card!.data.uuid, held_amount: '0.00', currency: card!.data.currency, created_at: new Date().toISOString(), failure_reason: null } }, 202);
    },
  },
  {
    name: 'the issued card is loaded with the initial top-up minus the issue fee',
    kind: 'money',
    rest: editJson(/^\/cards\/[^/]+$/, (b) => {
      if (b.data && b.data.status === 'active' && typeof b.data.card_balance === 'string') {
        for (const k of ['card_balance', 'available_balance']) b.data[k] = (Number(b.data[k]) - 1).toFixed(2);
      }
    }),
  },
  // Webhook signing.
  {
    name: 'deliveries signed with another secret',
    kind: 'webhook-signing',
    hook: (d) => [{ body: d.body, signature: sign(d.body, `${d.secret}x`, now()) }],
  },
  {
    name: 'the signature timestamp in milliseconds',
    kind: 'webhook-signing',
    hook: (d) => [{ body: d.body, signature: sign(d.body, d.secret, String(Date.now())) }],
  },
  {
    name: 'the signature over re-serialized JSON',
    kind: 'webhook-signing',
    hook: (d) => {
      const pretty = Buffer.from(JSON.stringify(d.event, null, 1));
      const t = now();
      return [{ body: pretty, signature: `t=${t},v1=${createHmac('sha256', d.secret).update(`${t}.`).update(JSON.stringify(d.event)).digest('hex')}` }];
    },
  },
];
