// Copied by gen-card-api from templates/client/pagination.ts. Do not edit: change the template and run the generator.
/**
 * Paginated lists (D1): a page is awaitable, and the same object iterates every item of every page.
 *
 * @module
 */
import type { WithResponse } from './core.js';

/** `meta` of a D1 page. `from`/`to` are `null` on an empty page. */
export interface PageMeta {
  current_page: number;
  per_page: number;
  total: number;
  last_page: number;
  from: number | null;
  to: number | null;
}

/** `links` of a D1 page; `prev`/`next` are `null` at the ends. */
export interface PageLinks {
  first: string | null;
  last: string | null;
  prev: string | null;
  next: string | null;
}

/** One page of a paginated list (D1). */
export interface Page<T> {
  data: T[];
  meta: PageMeta;
  links: PageLinks;
}

/** Fetches one page by number; built by the client core. */
export type PageFetcher<T> = (page: number) => Promise<WithResponse<Page<T>>>;

/**
 * Whether a page has a successor. `meta.last_page` decides when present, so the client never asks
 * for a page past the end; an empty page always ends the walk, and without `meta` only a non-null
 * `links.next` lets it go on.
 */
export function hasNextPage(page: Page<unknown>): boolean {
  if (page.data.length === 0) return false;
  const meta = page.meta as Partial<PageMeta> | undefined;
  if (meta && typeof meta.current_page === 'number' && typeof meta.last_page === 'number') {
    return meta.current_page < meta.last_page;
  }
  return typeof page.links?.next === 'string';
}

/**
 * The result of a list call: `await` it for one page, or `for await` it for every item.
 *
 * Nothing is fetched until it is awaited or iterated; the first page is fetched once and shared
 * by both uses. Later pages are fetched one at a time as iteration reaches them.
 *
 * @example
 * ```ts
 * const page = await api.cards.list({ per_page: 100 });
 * console.log(page.meta.total, page.data.length);
 *
 * for await (const card of api.cards.list({ status: ['active', 'frozen'] }, { maxItems: 1000 })) {
 *   console.log(card.uuid);
 * }
 * ```
 */
export class PagePromise<T> implements PromiseLike<WithResponse<Page<T>>>, AsyncIterable<T> {
  readonly #fetchPage: PageFetcher<T>;
  readonly #startPage: number;
  readonly #maxItems: number;
  #first: Promise<WithResponse<Page<T>>> | undefined;

  /**
   * @param fetchPage - Fetches one page by number.
   * @param startPage - The page awaited and where iteration starts (default 1).
   * @param maxItems - Upper bound on the items iteration yields (default unbounded).
   */
  constructor(fetchPage: PageFetcher<T>, startPage = 1, maxItems?: number) {
    if (maxItems !== undefined && !(Number.isInteger(maxItems) && maxItems >= 0)) {
      throw new TypeError(`maxItems must be an integer >= 0, got ${String(maxItems)}`);
    }
    this.#fetchPage = fetchPage;
    this.#startPage = startPage;
    this.#maxItems = maxItems ?? Infinity;
  }

  #firstPage(): Promise<WithResponse<Page<T>>> {
    return (this.#first ??= this.#fetchPage(this.#startPage));
  }

  /** Resolves with the first page (D1 envelope with `lastResponse`). */
  then<R1 = WithResponse<Page<T>>, R2 = never>(
    onfulfilled?: ((page: WithResponse<Page<T>>) => R1 | PromiseLike<R1>) | null,
    onrejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.#firstPage().then(onfulfilled, onrejected);
  }

  /** Same as `Promise.prototype.catch` on the first page. */
  catch<R = never>(onrejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<WithResponse<Page<T>> | R> {
    return this.#firstPage().catch(onrejected);
  }

  /** Same as `Promise.prototype.finally` on the first page. */
  finally(onfinally?: (() => void) | null): Promise<WithResponse<Page<T>>> {
    return this.#firstPage().finally(onfinally);
  }

  /**
   * Iterates whole pages, from the start page to the last one (or until `maxItems` items have
   * been seen).
   */
  async *pages(): AsyncGenerator<WithResponse<Page<T>>, void, undefined> {
    let number = this.#startPage;
    let page = await this.#firstPage();
    let seen = page.data.length;
    yield page;
    while (seen < this.#maxItems && hasNextPage(page)) {
      const current = (page.meta as Partial<PageMeta> | undefined)?.current_page;
      number = (typeof current === 'number' ? current : number) + 1;
      page = await this.#fetchPage(number);
      seen += page.data.length;
      yield page;
    }
  }

  /** Iterates every item of every page, stopping after `maxItems`. */
  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    if (this.#maxItems === 0) return;
    let count = 0;
    for await (const page of this.pages()) {
      for (const item of page.data) {
        yield item;
        if (++count >= this.#maxItems) return;
      }
    }
  }

  /** Collects every item (bounded by `maxItems`) into an array. */
  async toArray(): Promise<T[]> {
    const out: T[] = [];
    for await (const item of this) out.push(item);
    return out;
  }
}
