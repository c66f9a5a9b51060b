/** A list read page by page, shown as a table: loading and failure notices, a line when it is empty, its rows, and the button for the next page. */
import type { JSX } from 'preact';
import { LoadMore } from './load-more.js';
import { ErrorNotice, Loading } from './notices.js';
import type { Loaded } from './use-load.js';
import type { MorePages } from './use-more-pages.js';

export function PagedTable<Row>({ label, columns, loaded, pages, row, what, empty, moreLabel, moreWhat }: {
  /** The table's accessible name. */
  readonly label: string;
  readonly columns: readonly string[];
  /** The first page's load. */
  readonly loaded: Loaded<unknown>;
  readonly pages: MorePages<Row>;
  readonly row: (row: Row) => JSX.Element;
  /** What was being done when the first page failed, as the error notice says it. */
  readonly what: string;
  /** The line shown when the list is empty. */
  readonly empty: string;
  readonly moreLabel?: string;
  readonly moreWhat?: string;
}): JSX.Element {
  return (
    <>
      <Loading when={loaded.loading} />
      <ErrorNotice error={loaded.error} what={what} />
      {loaded.data !== undefined && pages.rows.length === 0 ? <p class="empty">{empty}</p> : null}
      {pages.rows.length === 0 ? null : (
        <table aria-label={label}>
          <thead>
            <tr>
              {columns.map((column) => (
                <th scope="col" key={column}>
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>{pages.rows.map(row)}</tbody>
        </table>
      )}
      <LoadMore cursor={pages.cursor} onLoad={pages.loadMore} error={pages.error} label={moreLabel} what={moreWhat} />
    </>
  );
}
