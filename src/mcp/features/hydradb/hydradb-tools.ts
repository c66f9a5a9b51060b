/**
 * The HydraDB toolset in tools/list order, and the deprecated `hydra_db_*` names registered only
 * with HYDRADB_MCP_LEGACY_TOOLS=1, each the tool it was renamed to (the two list aliases keep
 * their family in the name).
 */
import { defineHydraTool, renamedTool } from './hydradb-tool.js';
import type { HydraTool } from './hydradb-tool.js';
import { hydraDeleteTool } from './hydradb-delete-tool.js';
import { hydraFeedbackTool } from './hydradb-feedback-tool.js';
import { hydraIngestTool } from './hydradb-ingest-tool.js';
import { hydraInspectTool } from './hydradb-inspect-tool.js';
import { familyListInput, hydraListOutput, hydraListTool, listFamily } from './hydradb-list-tool.js';
import { hydraQueryTool } from './hydradb-query-tool.js';
import { hydraStatusTool } from './hydradb-status-tool.js';
import { hydraSubgraphTool } from './hydradb-subgraph-tool.js';

export const HYDRADB_TOOLS: readonly HydraTool[] = [
  hydraQueryTool,
  hydraIngestTool,
  hydraListTool,
  hydraInspectTool,
  hydraDeleteTool,
  hydraStatusTool,
  hydraSubgraphTool,
  hydraFeedbackTool,
];

const deprecated = (replacement: string): string => `Deprecated: use ${replacement}, which this name calls. `;

function familyList(name: string, kind: 'memory' | 'knowledge'): HydraTool {
  return defineHydraTool({
    name,
    title: `List ${kind === 'memory' ? 'memories' : 'knowledge sources'} (deprecated)`,
    description: `${deprecated(`hydradb_list with kind ${kind}`)}Lists ${kind === 'memory' ? 'memories' : 'knowledge sources'} page by page, saying how many of the total it showed.`,
    input: familyListInput,
    output: hydraListOutput,
    annotations: hydraListTool.annotations,
    run: (facade, principal, args, call) => listFamily(facade, principal, { ...args, kind }, call),
  });
}

export const HYDRADB_LEGACY_TOOLS: readonly HydraTool[] = [
  renamedTool(hydraQueryTool, 'hydra_db_search', deprecated('hydradb_query') + hydraQueryTool.description),
  renamedTool(hydraIngestTool, 'hydra_db_store', deprecated('hydradb_ingest') + hydraIngestTool.description),
  renamedTool(hydraIngestTool, 'hydra_db_ingest_conversation', deprecated('hydradb_ingest with turns') + hydraIngestTool.description),
  familyList('hydra_db_list_memories', 'memory'),
  familyList('hydra_db_list_sources', 'knowledge'),
  renamedTool(hydraInspectTool, 'hydra_db_fetch_content', deprecated('hydradb_inspect') + hydraInspectTool.description),
  renamedTool(hydraDeleteTool, 'hydra_db_delete_memory', deprecated('hydradb_delete') + hydraDeleteTool.description),
];

/** The Cypher graph tools HydraDB's server offers and Hyphae does not (docs/coming-from-hydradb.md). */
export const HYDRADB_GRAPH_TOOL_NAMES = ['hydradb_graph_query', 'hydradb_graph_collections', 'hydradb_graph_admin'] as const;

/** The one line a process logs when HYDRADB_MCP_GRAPH_TOOLS=1 asks for them. */
export const GRAPH_TOOLS_NOT_OFFERED =
  `HYDRADB_MCP_GRAPH_TOOLS=1: the Cypher graph tools (${HYDRADB_GRAPH_TOOL_NAMES.join(', ')}) are not offered by Hyphae — its graph is the relations between memories (hydradb_subgraph); see docs/coming-from-hydradb.md`;
