/**
 * Erasures: the tenant's erasure receipts, the append-only audit log (docs/forgetting.md), newest
 * first — when, who (agent and key id), which selector, and how many copies of each kind went. A
 * receipt holds identifiers and counts, never the erased text (GET /v1/admin/erasures; an admin key
 * scoped to every project).
 */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { ApiClient, ApiError } from '../api/client.js';
import type { ErasureReceipt, ErasureReceiptPage } from '../api/wire.js';
import { LoadMore } from '../components/load-more.js';
import { ErrorNotice, Loading } from '../components/notices.js';
import { asApiError, useLoad } from '../components/use-load.js';
import { formatInstant } from '../format.js';
import { useSession } from '../session.js';

const PAGE = 20;

/** The selector in words, from its kind and identifiers: "agent bob", "cell 1a2b… with its history". */
export function selectorText(selector: Readonly<Record<string, unknown>>): string {
  const field = (name: string): string => {
    const value = selector[name];
    return typeof value === 'string' ? value : '';
  };
  switch (selector.kind) {
    case 'cell':
      return `cell ${field('node_id')}${selector.include_history === true ? ' with its history' : ''}`;
    case 'cells':
      return `${Array.isArray(selector.node_ids) ? selector.node_ids.length : 0} cells (${field('reason')})`;
    case 'source':
      return `source ${field('source_id')} in project ${field('project')}`;
    case 'agent':
      return `agent ${field('agent')}`;
    case 'project':
      return `project ${field('project')}`;
    case 'tenant':
      return 'the whole tenant';
    default:
      return typeof selector.kind === 'string' ? selector.kind : 'unknown';
  }
}

const pageOf = (api: ApiClient, cursor?: string): Promise<ErasureReceiptPage> => api.get<ErasureReceiptPage>('/v1/admin/erasures', { limit: PAGE, cursor });

function ReceiptRow({ receipt }: { readonly receipt: ErasureReceipt }): JSX.Element {
  const counts = Object.entries(receipt.counts);
  return (
    <tr>
      <td>{formatInstant(receipt.erased_at)}</td>
      <td>
        {receipt.actor_agent}
        <span class="meta"> {receipt.actor_key === null ? 'no key (the server’s expiry)' : `key ${receipt.actor_key}`}</span>
      </td>
      <td>{selectorText(receipt.selector)}</td>
      <td>{counts.length === 0 ? 'nothing' : counts.map(([kind, n]) => `${kind} ${n}`).join(', ')}</td>
    </tr>
  );
}

export function ErasuresPage(): JSX.Element {
  const { api, identity } = useSession();
  const tenantWide = identity.projects.includes('*');
  const loaded = useLoad(async () => (tenantWide ? pageOf(api) : undefined), ['erasures', tenantWide]);
  const [more, setMore] = useState<{ receipts: ErasureReceipt[]; cursor: string | null } | undefined>(undefined);
  const [moreError, setMoreError] = useState<ApiError | undefined>(undefined);
  if (!tenantWide) {
    return (
      <div class="page">
        <h1>Erasures</h1>
        <p role="alert">The erasure receipts need an admin key scoped to every project; yours reaches {identity.projects.join(', ')}.</p>
      </div>
    );
  }
  const receipts = [...(loaded.data?.receipts ?? []), ...(more?.receipts ?? [])];
  const cursor = more === undefined ? loaded.data?.next_cursor : more.cursor;

  const loadMore = async (): Promise<void> => {
    if (cursor === null || cursor === undefined) return;
    try {
      const next = await pageOf(api, cursor);
      setMore({ receipts: [...(more?.receipts ?? []), ...next.receipts], cursor: next.next_cursor });
      setMoreError(undefined);
    } catch (error) {
      setMoreError(asApiError(error));
    }
  };

  return (
    <div class="page">
      <h1>Erasures</h1>
      <p class="help">Every erasure of your tenant, newest first: who asked, what it named and how many copies of each kind went. No receipt holds the erased text.</p>
      <Loading when={loaded.loading} />
      <ErrorNotice error={loaded.error} what="Reading the erasure receipts" />
      {loaded.data !== undefined && receipts.length === 0 ? <p class="empty">Nothing was erased in this tenant yet.</p> : null}
      {receipts.length === 0 ? null : (
        <table aria-label="Erasure receipts">
          <thead>
            <tr>
              <th scope="col">Erased</th>
              <th scope="col">By</th>
              <th scope="col">What</th>
              <th scope="col">Copies removed</th>
            </tr>
          </thead>
          <tbody>
            {receipts.map((receipt) => (
              <ReceiptRow key={receipt.receipt_id} receipt={receipt} />
            ))}
          </tbody>
        </table>
      )}
      <LoadMore cursor={cursor} onLoad={loadMore} error={moreError} />
    </div>
  );
}
