/** The pages of a list after its first, asked for one at a time with the cursor the last one gave. */
import { useState } from 'preact/hooks';
import type { ApiError } from '../api/client.js';
import { asApiError } from './use-load.js';

export interface ListPage<Row> {
  readonly rows: readonly Row[];
  readonly cursor: string | null;
}

export interface MorePages<Row> {
  /** The first page's rows, then those of every page loaded since. */
  readonly rows: readonly Row[];
  /** Where the next page starts; null at the end, undefined before the first page arrived. */
  readonly cursor: string | null | undefined;
  /** What failed when the last next page was asked for. */
  readonly error: ApiError | undefined;
  loadMore(): Promise<void>;
}

/** `key` names what the list shows (its filters): pages loaded for another key are not appended. */
export function useMorePages<Row>(key: string, first: ListPage<Row> | undefined, next: (cursor: string) => Promise<ListPage<Row>>): MorePages<Row> {
  const [more, setMore] = useState<{ key: string; rows: readonly Row[]; cursor: string | null } | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const extra = more?.key === key ? more : undefined;
  const cursor = extra === undefined ? first?.cursor : extra.cursor;
  const loadMore = async (): Promise<void> => {
    if (cursor === null || cursor === undefined) return;
    try {
      const page = await next(cursor);
      setMore({ key, rows: [...(extra?.rows ?? []), ...page.rows], cursor: page.cursor });
      setError(undefined);
    } catch (failure) {
      setError(asApiError(failure));
    }
  };
  return { rows: [...(first?.rows ?? []), ...(extra?.rows ?? [])], cursor, error, loadMore };
}
