// The directions table at any size: which rows, in which order, on which page. Pure: the matching rows, the query
// (`?sort=rate&order=desc&page=2`) and the clock in, one page of rows and what the pager shows out. Rates and reserves
// compare as Decimal (a rate of `1 : 9195000` against `0.0000001 : 1` is not text), rows without a value go last in
// either order, and ties keep the config order, so a page holds the same rows at every reload.
import { Decimal } from '../../base/decimal.js';
import { directionName } from '../../base/words.js';
import type { DirectionFacts } from './rows.js';

/** Rows on one page: a page of 10,000 directions is unreadable and heavy; the pager and the filters reach the rest. */
export const PAGE_SIZE = 200;

/** The columns a page sorts by; `config`: the order of the config (the default). */
export const SORT_KEYS = ['config', 'direction', 'rate', 'reserve', 'state', 'place', 'age'] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortOrder = 'asc' | 'desc';

export interface Paging {
  sort: SortKey;
  order: SortOrder;
  /** 1-based, within 1 … pages. */
  page: number;
}

export interface PageView extends Paging {
  pages: number;
  pageSize: number;
  /** 1-based positions of the first and last row shown (0, 0 when none). */
  first: number;
  last: number;
}

/** The query's paging, bounded: an unknown sort is the config order, a page past the last is the last. */
export function normalizePaging(query: { sort?: string; order?: string; page?: string } = {}): Paging {
  const sort = SORT_KEYS.find((key) => key === query.sort?.trim().toLowerCase()) ?? 'config';
  const order: SortOrder = query.order?.trim().toLowerCase() === 'desc' ? 'desc' : 'asc';
  const page = Number.parseInt(query.page ?? '', 10);
  return { sort, order, page: Number.isFinite(page) && page > 1 ? Math.min(page, 1_000_000) : 1 };
}

type Value = Decimal | string | number | undefined;

/** What a row is sorted by; undefined: it has none (not published, no reserve, no `compete:`, no quote). */
function valueOf(row: DirectionFacts, key: SortKey): Value {
  switch (key) {
    case 'direction':
      return directionName(row.from, row.to);
    case 'rate': {
      // Out per in: what a client gets for one unit given, whichever side the published form puts the 1 on.
      return row.rate ? new Decimal(row.rate.out).div(row.rate.in) : undefined;
    }
    case 'reserve':
      return row.reserve === undefined ? undefined : new Decimal(row.reserve);
    case 'state':
      // The faults first, then held back on purpose, then published: the rows that need someone at the top.
      return `${stateRank[row.state]}|${row.kind ?? ''}|${row.reason ?? ''}`;
    case 'place':
      return row.compete?.place;
    case 'age':
      // The oldest quote a row uses: its age grows as its time falls, so ascending age is descending time.
      return row.quotes.length === 0 ? undefined : -Math.min(...row.quotes.map((q) => q.at));
    default:
      return undefined;
  }
}

const stateRank: Record<DirectionFacts['state'], number> = { withheld: 0, paused: 1, hours: 2, published: 3 };

function compare(a: Exclude<Value, undefined>, b: Exclude<Value, undefined>): number {
  if (a instanceof Decimal && b instanceof Decimal) return a.comparedTo(b);
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0;
}

/** The rows in the order asked for; the input (config order) is not changed. */
export function sortRows(rows: readonly DirectionFacts[], paging: Pick<Paging, 'sort' | 'order'>): DirectionFacts[] {
  if (paging.sort === 'config') return paging.order === 'desc' ? [...rows].reverse() : [...rows];
  const sign = paging.order === 'desc' ? -1 : 1;
  const keyed = rows.map((row, index) => ({ row, index, value: valueOf(row, paging.sort) }));
  keyed.sort((a, b) => {
    if (a.value === undefined || b.value === undefined)
      return a.value === b.value ? a.index - b.index : a.value === undefined ? 1 : -1;
    return sign * compare(a.value, b.value) || a.index - b.index;
  });
  return keyed.map((k) => k.row);
}

/** One page of the sorted rows, and where it is. */
export function pageOf<T>(rows: readonly T[], paging: Paging): { rows: T[]; page: PageView } {
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  const page = Math.min(paging.page, pages);
  const start = (page - 1) * PAGE_SIZE;
  const shown = rows.slice(start, start + PAGE_SIZE);
  return {
    rows: shown,
    page: {
      ...paging,
      page,
      pages,
      pageSize: PAGE_SIZE,
      first: shown.length === 0 ? 0 : start + 1,
      last: start + shown.length,
    },
  };
}

/** The page numbers a pager links: the first, the last, and two either side of the current one; null is a gap (…). */
export function pageNumbers(page: number, pages: number): (number | null)[] {
  const wanted = new Set([1, pages, page - 2, page - 1, page, page + 1, page + 2].filter((n) => n >= 1 && n <= pages));
  const sorted = [...wanted].sort((a, b) => a - b);
  const out: (number | null)[] = [];
  for (const [i, n] of sorted.entries()) {
    const before = sorted[i - 1];
    if (before !== undefined && n - before === 2) out.push(before + 1);
    else if (before !== undefined && n - before > 2) out.push(null);
    out.push(n);
  }
  return out;
}

/** 10000 → "10,000": counts people read on the page. */
export const thousands = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
