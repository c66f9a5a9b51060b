/** The button under a paged list that asks for its next page, and what failed when that did. */
import type { JSX } from 'preact';
import type { ApiError } from '../api/client.js';
import { ErrorNotice } from './notices.js';

export function LoadMore({ cursor, onLoad, error, label = 'Load more', what = 'Loading more' }: {
  readonly cursor: string | null | undefined;
  readonly onLoad: () => Promise<void>;
  readonly error: ApiError | undefined;
  readonly label?: string;
  readonly what?: string;
}): JSX.Element {
  return (
    <>
      {cursor === null || cursor === undefined ? null : (
        <button type="button" onClick={() => void onLoad()}>
          {label}
        </button>
      )}
      <ErrorNotice error={error} what={what} />
    </>
  );
}
