import { queryInputSchema } from '../../../core/schemas.js';
import { recallIdsResultSchema } from '../../../core/output-schemas.js';
import { defineTool } from './tool-definition.js';
import type { McpTool } from './tool-definition.js';
import { nearestCells } from './nearest-cells.js';
import { asOfArgument, searchOptions } from './search-instant.js';

export const queryTool: McpTool = defineTool({
  name: 'query',
  title: 'Query a memory layer',
  description:
    'Like recall, at an explicit layer: L0 raw cells, L1 scene consolidations, L2 promoted durable knowledge. Searches your current ' +
    'project by meaning, optionally narrowed to some cell_types or one scene. Returns node ids and cosine distances, nearest first, ' +
    'plus one resource_link per cell; read the content through the hyphae://cells/{node_id} resource.',
  input: queryInputSchema.extend(asOfArgument),
  output: recallIdsResultSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(facade, principal, args) {
    const { as_of: asOf, ...search } = args;
    return nearestCells(await facade.query(principal, search, searchOptions(asOf)));
  },
});
