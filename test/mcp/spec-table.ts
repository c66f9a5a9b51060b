/** The tools as docs/mcp.md lists them, row by row: arguments (required ones marked *) and the four annotations. */
export interface SpecRow {
  readonly args: readonly string[];
  readonly readOnly: boolean;
  readonly destructive: boolean;
  readonly idempotent: boolean;
}

/** recall's and query's optional ranking mode, filters, recency bias, graph context and instant. */
const SEARCH_CONTROLS = ['mode', 'metadata', 'source_agents', 'created_after', 'created_before', 'min_trust', 'recency_bias', 'kind', 'num_related_chunks', 'graph_context', 'as_of'];

export const SPEC_TABLE: Readonly<Record<string, SpecRow>> = {
  store: { args: ['content*', 'cell_type*', 'salience', 'scene_id', 'source_ref', 'metadata', 'idempotency_key', 'supersedes', 'relations', 'expires_at', 'ttl_seconds'], readOnly: false, destructive: false, idempotent: false },
  recall: { args: ['query*', 'k', 'cell_types', 'scene_id', ...SEARCH_CONTROLS], readOnly: true, destructive: false, idempotent: true },
  query: { args: ['query*', 'layer*', 'k', 'cell_types', 'scene_id', ...SEARCH_CONTROLS], readOnly: true, destructive: false, idempotent: true },
  open_session: { args: ['project*', 'title'], readOnly: false, destructive: false, idempotent: false },
  close_session: { args: ['session_id*'], readOnly: false, destructive: false, idempotent: true },
  place_beacon: { args: ['text*', 'threshold', 'cell_types', 'scene_id', 'project', 'ttl_seconds', 'include_own'], readOnly: false, destructive: false, idempotent: false },
  list_beacons: { args: ['limit', 'cursor'], readOnly: true, destructive: false, idempotent: true },
  pull_diffs: { args: ['since*', 'limit'], readOnly: true, destructive: false, idempotent: true },
  get_scene: { args: ['scene_id*'], readOnly: true, destructive: false, idempotent: true },
  list_scenes: { args: ['project', 'limit', 'cursor'], readOnly: true, destructive: false, idempotent: true },
  drain_inbox: { args: ['page_size'], readOnly: false, destructive: false, idempotent: false },
};
