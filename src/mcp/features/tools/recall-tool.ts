import { recallInputSchema } from '../../../core/schemas.js';
import { recallIdsResultSchema } from '../../../core/output-schemas.js';
import { defineTool } from './tool-definition.js';
import type { McpTool } from './tool-definition.js';
import { nearestCells } from './nearest-cells.js';
import { asOfArgument, searchOptions } from './search-instant.js';

export const recallTool: McpTool = defineTool({
  name: 'recall',
  title: 'Recall memories',
  description:
    'Find the k raw memory cells (layer L0) of your current project closest in meaning to a natural-language query, optionally ' +
    'narrowed to some cell_types or one scene. Returns node ids and cosine distances, nearest first, plus one resource_link per ' +
    "cell: read a cell's content by reading its resource hyphae://cells/{node_id} (resources/read); a chunk of a source links to " +
    'its slice, hyphae://sources/{source_id}?offset=…&limit=… (read around it with another offset). Use query instead to search ' +
    'consolidated (L1) or promoted (L2) knowledge.',
  input: recallInputSchema.extend(asOfArgument),
  output: recallIdsResultSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(facade, principal, args) {
    const { as_of: asOf, ...search } = args;
    return nearestCells(await facade.recall(principal, search, searchOptions(asOf)));
  },
});
