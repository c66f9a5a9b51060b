import { recallInputSchema } from '../../core/schemas.js';
import { recallIdsResultSchema } from '../../core/output-schemas.js';
import { defineTool } from './tool-definition.js';
import type { McpTool } from './tool-definition.js';

export const recallTool: McpTool = defineTool({
  name: 'recall',
  title: 'Recall memories',
  description:
    'Find the k raw memory cells (layer L0) of your current project closest in meaning to a natural-language query, optionally ' +
    'narrowed to some cell_types or one scene. Returns node ids and cosine distances only, nearest first, never content; read a ' +
    "cell's content over the REST API (GET /v1/cells/{id}). Use query instead to search consolidated (L1) or promoted (L2) knowledge.",
  input: recallInputSchema,
  output: recallIdsResultSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(facade, principal, args) {
    const found = await facade.recall(principal, args);
    return { results: found.results.map((hit) => ({ node_id: hit.node_id, distance: hit.distance })) };
  },
});
