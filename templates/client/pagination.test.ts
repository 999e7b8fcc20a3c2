import { describe, expect, it } from 'vitest';
import { ClientCore, type OperationDescriptor } from './core.js';
import { NotFoundError } from './errors.js';
import { PagePromise, hasNextPage, type Page } from './pagination.js';
import { createQuerySerializerFor } from './query.js';

const BASE = 'https://api.example.test/api/v1';
const listCards = {
  method: 'get',
  path: '/cards',
  write: false,
  query: { status: { style: 'form', explode: false } },
} as const satisfies OperationDescriptor;
const listTransactions = { method: 'get', path: '/cards/{uuid}/transactions', write: false } as const satisfies OperationDescriptor;

interface Row {
  id: number;
}

/** A fetch serving `total` rows `per` to a page in the D1 envelope, recording each URL. */
function pagedServer(total: number, per: number) {
  const urls: URL[] = [];
  const lastPage = Math.max(1, Math.ceil(total / per));
  const fetch = async (req: Request): Promise<Response> => {
    const url = new URL(req.url);
    urls.push(url);
    const page = Number(url.searchParams.get('page') ?? '1');
    const from = (page - 1) * per;
    const data = Array.from({ length: Math.max(0, Math.min(per, total - from)) }, (_, i) => ({ id: from + i + 1 }));
    const body = {
      data,
      meta: { current_page: page, per_page: per, total, last_page: lastPage, from: data.length ? from + 1 : null, to: data.length ? from + data.length : null },
      links: { first: `${BASE}/cards?page=1`, last: `${BASE}/cards?page=${lastPage}`, prev: page > 1 ? `${BASE}/cards?page=${page - 1}` : null, next: page < lastPage ? `${BASE}/cards?page=${page + 1}` : null },
    };
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json', 'x-request-id': `req_p${page}` } });
  };
  return { fetch, urls };
}

function client(fetch: (req: Request) => Promise<Response>): ClientCore {
  return new ClientCore({ token: 'test_sk_x', baseUrl: BASE, fetch, sleep: async () => {} });
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('PagePromise over ClientCore.list', () => {
  it('awaits to the first page with meta, links and a hidden lastResponse', async () => {
    const { fetch, urls } = pagedServer(5, 2);
    const page = await client(fetch).list<Row>(listCards);
    expect(page.data).toEqual([{ id: 1 }, { id: 2 }]);
    expect(page.meta).toMatchObject({ current_page: 1, last_page: 3, total: 5 });
    expect(page.links.next).toBe(`${BASE}/cards?page=2`);
    expect(page.lastResponse).toMatchObject({ status: 200, requestId: 'req_p1', attempts: 1 });
    expect(Object.keys(page).sort()).toEqual(['data', 'links', 'meta']);
    expect(urls.map((u) => u.searchParams.get('page'))).toEqual(['1']);
  });

  it('fetches nothing until awaited or iterated', async () => {
    const { fetch, urls } = pagedServer(5, 2);
    client(fetch).list<Row>(listCards);
    await new Promise((r) => setTimeout(r, 5));
    expect(urls).toHaveLength(0);
  });

  it('iterates every item across pages and stops at meta.last_page without asking for more', async () => {
    const { fetch, urls } = pagedServer(5, 2);
    const rows = await collect(client(fetch).list<Row>(listCards));
    expect(rows.map((r) => r.id)).toEqual([1, 2, 3, 4, 5]);
    expect(urls.map((u) => u.searchParams.get('page'))).toEqual(['1', '2', '3']);
  });

  it('starts at query.page and keeps the other query parameters on every page', async () => {
    const { fetch, urls } = pagedServer(6, 2);
    const rows = await collect(client(fetch).list<Row>(listCards, { query: { page: 2, per_page: 2, search: 'ann' } }));
    expect(rows.map((r) => r.id)).toEqual([3, 4, 5, 6]);
    expect(urls.map((u) => `${u.searchParams.get('page')}/${u.searchParams.get('per_page')}/${u.searchParams.get('search')}`)).toEqual(['2/2/ann', '3/2/ann']);
  });

  it('stops at an empty page', async () => {
    const { fetch, urls } = pagedServer(0, 50);
    const result = client(fetch).list<Row>(listCards);
    expect(await collect(result)).toEqual([]);
    expect(urls).toHaveLength(1);
  });

  it.each([
    [0, 0, []],
    [1, 1, [1]],
    [2, 1, [1, 2]],
    [3, 2, [1, 2, 3]],
    [4, 2, [1, 2, 3, 4]],
    [100, 3, [1, 2, 3, 4, 5]],
  ])('maxItems %i fetches %i pages', async (maxItems, pages, ids) => {
    const { fetch, urls } = pagedServer(5, 2);
    const rows = await collect(client(fetch).list<Row>(listCards, undefined, { maxItems }));
    expect(rows.map((r) => r.id)).toEqual(ids);
    expect(urls).toHaveLength(pages);
  });

  it('fetches no further page when the loop breaks', async () => {
    const { fetch, urls } = pagedServer(10, 2);
    for await (const row of client(fetch).list<Row>(listCards)) {
      if (row.id === 2) break;
    }
    expect(urls).toHaveLength(1);
  });

  it('shares the first page between await and iteration', async () => {
    const { fetch, urls } = pagedServer(3, 2);
    const list = client(fetch).list<Row>(listCards);
    const first = await list;
    const rows = await collect(list);
    expect(first.data).toHaveLength(2);
    expect(rows).toHaveLength(3);
    expect(urls.map((u) => u.searchParams.get('page'))).toEqual(['1', '2']);
  });

  it('iterates whole pages with pages()', async () => {
    const { fetch } = pagedServer(5, 2);
    const pages = await collect(client(fetch).list<Row>(listCards).pages());
    expect(pages.map((p) => p.data.length)).toEqual([2, 2, 1]);
    expect(pages.map((p) => p.lastResponse.requestId)).toEqual(['req_p1', 'req_p2', 'req_p3']);
  });

  it('collects with toArray()', async () => {
    const { fetch } = pagedServer(3, 1);
    expect(await client(fetch).list<Row>(listCards, undefined, { maxItems: 2 }).toArray()).toEqual([{ id: 1 }, { id: 2 }]);
  });

  it('serialises a comma-separated status array (explode: false) and path parameters', async () => {
    const { fetch, urls } = pagedServer(1, 50);
    await client(fetch).list(listCards, { query: { status: ['active', 'frozen'], cardholder_type: 'user', search: undefined } });
    expect(urls[0]!.search).toBe('?status=active,frozen&cardholder_type=user&page=1');

    await client(fetch).list(listTransactions, { path: { uuid: 'c-1' }, query: { type: ['capture', 'refund'], from: '2026-01-01T00:00:00Z' } });
    expect(urls[1]!.pathname).toBe('/api/v1/cards/c-1/transactions');
    expect(urls[1]!.search).toBe('?type=capture&type=refund&from=2026-01-01T00%3A00%3A00Z&page=1');
  });

  it('rejects the await and the iteration with the typed error', async () => {
    const fetch = async (): Promise<Response> =>
      new Response(JSON.stringify({ error: { code: 'card.not_found', message: 'Card not found', request_id: 'r' } }), { status: 404 });
    const list = client(fetch).list(listTransactions, { path: { uuid: 'missing' } });
    await expect(list).rejects.toBeInstanceOf(NotFoundError);
    await expect(collect(list)).rejects.toBeInstanceOf(NotFoundError);
  });

  it('rejects a body that is not a page', async () => {
    const fetch = async (): Promise<Response> => new Response(JSON.stringify({ data: { not: 'a list' } }), { status: 200 });
    await expect(client(fetch).list(listCards)).rejects.toMatchObject({ code: 'api.invalid_response' });
  });
});

describe('hasNextPage', () => {
  const page = (over: Partial<Page<number>>): Page<number> => ({
    data: [1],
    meta: { current_page: 1, per_page: 1, total: 2, last_page: 2, from: 1, to: 1 },
    links: { first: null, last: null, prev: null, next: null },
    ...over,
  });
  it.each([
    ['before the last page', page({}), true],
    ['on the last page', page({ meta: { current_page: 2, per_page: 1, total: 2, last_page: 2, from: 2, to: 2 } }), false],
    ['past the last page', page({ meta: { current_page: 3, per_page: 1, total: 2, last_page: 2, from: null, to: null } }), false],
    ['on an empty page', page({ data: [] }), false],
    ['without meta, with links.next', { data: [1], links: { next: 'x' } } as unknown as Page<number>, true],
    ['without meta or links', { data: [1] } as unknown as Page<number>, false],
  ])('%s', (_name, p, want) => {
    expect(hasNextPage(p)).toBe(want);
  });

  it('follows links.next by page number when meta is missing', async () => {
    const served: number[] = [];
    const list = new PagePromise<number>(async (n) => {
      served.push(n);
      return Object.assign({ data: [n], links: { next: n < 3 ? 'more' : null } } as unknown as Page<number>, { lastResponse: {} as never });
    });
    expect(await collect(list)).toEqual([1, 2, 3]);
    expect(served).toEqual([1, 2, 3]);
  });
});

describe('createQuerySerializerFor', () => {
  it.each([
    [{}, { status: ['active', 'frozen'] }, 'status=active&status=frozen'],
    [{ status: { style: 'form', explode: false } }, { status: ['active', 'frozen'] }, 'status=active,frozen'],
    [{ status: { style: 'form', explode: false } }, { status: [] }, ''],
    [{}, { from: new Date('2026-01-02T03:04:05.000Z') }, 'from=2026-01-02T03%3A04%3A05.000Z'],
    [{}, { search: 'a&b c', page: 2, none: null, gone: undefined }, 'search=a%26b%20c&page=2'],
    [{}, { flag: true }, 'flag=true'],
  ] as const)('%j serialises %j as %s', (styles, query, want) => {
    expect(createQuerySerializerFor(styles)(query as Record<string, unknown>)).toBe(want);
  });
});
