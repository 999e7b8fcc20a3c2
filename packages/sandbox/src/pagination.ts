import { FieldErrors } from './errors.js';
import type { Paginated } from './types.js';

/** D10: default and maximum page size of every list. */
export const DEFAULT_PER_PAGE = 50;
export const MAX_PER_PAGE = 100;

/** Page query as the services accept it: numbers, or the raw query-string text. */
export interface PageQuery {
  page?: number | string | undefined;
  per_page?: number | string | undefined;
}

/** D10: the largest `page`, 2^53-1, the largest integer every JSON reader keeps exact. */
export const MAX_PAGE = Number.MAX_SAFE_INTEGER;

function toInt(value: number | string | undefined): number | undefined | null {
  if (value === undefined || value === '') return undefined;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : null;
  if (!/^[0-9]{1,16}$/.test(value)) return null;
  const n = Number(value);
  return Number.isSafeInteger(n) ? n : null;
}

/** Checks `page` (1..2^53-1) and `per_page` (1..100, D10) into `errors`; returns the values with defaults. */
export function parsePageQuery(query: PageQuery, errors: FieldErrors): { page: number; perPage: number } {
  const page = toInt(query.page);
  const perPage = toInt(query.per_page);
  if (page === null || (page !== undefined && page < 1)) errors.add('page', `must be an integer from 1 to ${MAX_PAGE}`);
  if (perPage === null || (perPage !== undefined && (perPage < 1 || perPage > MAX_PER_PAGE))) errors.add('per_page', `must be an integer from 1 to ${MAX_PER_PAGE}`);
  return { page: page ?? 1, perPage: perPage ?? DEFAULT_PER_PAGE };
}

/**
 * Builds the D1 envelope. Links repeat the filters so that following them keeps the same
 * list; parameters are sorted so the same list always yields the same URLs.
 *
 * @param basePath path the links start with, for example `/api/v1/cards`
 * @param filters the list's filters as they should appear in the query string (undefined ones are left out)
 */
export function paginate<T>(basePath: string, filters: Record<string, string | undefined>, page: number, perPage: number, total: number, data: T[]): Paginated<T> {
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const link = (p: number): string => {
    const params = new URLSearchParams();
    for (const name of Object.keys(filters).sort()) {
      const value = filters[name];
      if (value !== undefined) params.set(name, value);
    }
    params.set('page', String(p));
    params.set('per_page', String(perPage));
    return `${basePath}?${params.toString()}`;
  };
  const from = data.length > 0 ? (page - 1) * perPage + 1 : null;
  return {
    data,
    meta: { current_page: page, per_page: perPage, total, last_page: lastPage, from, to: from === null ? null : from + data.length - 1 },
    links: { first: link(1), last: link(lastPage), prev: page > 1 ? link(Math.min(page - 1, lastPage)) : null, next: page < lastPage ? link(page + 1) : null },
  };
}
