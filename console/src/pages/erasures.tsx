/**
 * Erasures: the tenant's erasure receipts, the append-only audit log (docs/forgetting.md), newest
 * first — when, who (agent and key id), which selector, and how many copies of each kind went. A
 * receipt holds identifiers and counts, never the erased text (GET /v1/admin/erasures; an admin key
 * scoped to every project).
 */
import type { JSX } from 'preact';
import type { ApiClient } from '../api/client.js';
import type { ErasureReceipt, ErasureReceiptPage } from '../api/wire.js';
import { PagedTable } from '../components/paged-table.js';
import { useLoad } from '../components/use-load.js';
import { useMorePages, type ListPage } from '../components/use-more-pages.js';
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
const listPage = (page: ErasureReceiptPage): ListPage<ErasureReceipt> => ({ rows: page.receipts, cursor: page.next_cursor });

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
  const pages = useMorePages('erasures', loaded.data === undefined ? undefined : listPage(loaded.data), async (cursor) => listPage(await pageOf(api, cursor)));
  if (!tenantWide) {
    return (
      <div class="page">
        <h1>Erasures</h1>
        <p role="alert">The erasure receipts need an admin key scoped to every project; yours reaches {identity.projects.join(', ')}.</p>
      </div>
    );
  }
  return (
    <div class="page">
      <h1>Erasures</h1>
      <p class="help">Every erasure of your tenant, newest first: who asked, what it named and how many copies of each kind went. No receipt holds the erased text.</p>
      <PagedTable
        label="Erasure receipts"
        columns={['Erased', 'By', 'What', 'Copies removed']}
        loaded={loaded}
        pages={pages}
        row={(receipt) => <ReceiptRow key={receipt.receipt_id} receipt={receipt} />}
        what="Reading the erasure receipts"
        empty="Nothing was erased in this tenant yet."
      />
    </div>
  );
}
