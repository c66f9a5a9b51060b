import { storeInputSchema } from '../../../core/schemas.js';
import { linkToNode } from '../resources/cell-presentation.js';
import { storedNodeOutput } from './output-shapes.js';
import { defineTool } from './tool-definition.js';
import type { McpTool } from './tool-definition.js';

export const storeTool: McpTool = defineTool({
  name: 'store',
  title: 'Store a memory',
  description:
    'Store one memory cell in shared memory: a decision, constraint, risk, pattern, lesson, fact, preference, context or task worth ' +
    'remembering. Write one self-contained statement per cell (at most 32 KiB). It goes into your current project (the one of your ' +
    'open session) and is gossiped to agents whose beacons match it. Use salience (0–1) for importance, source_ref to point back to ' +
    'where it came from, and idempotency_key to make retries safe. When a memory replaces an earlier one (a reversed decision, a ' +
    'corrected fact), pass the old node_id as supersedes: the old cell stops being recalled, stays in its history, and agents who were ' +
    'told about it receive an updated diff. Pass relations [{to, type}] to link it to cells it answers, depends_on, contradicts… ' +
    '(a snake_case type, a node_id you can read). A memory that restates a current one of the same type in your project (a rewording, ' +
    'by you or another agent) adds no cell: it reinforces that one (its energy, corroboration count, the agents who stated it, ' +
    'and its trust), gossips nothing, and the result says reinforced: true with that cell\'s node_id. Returns the node_id, ' +
    'reinforced, and a link to its hyphae://cells/{node_id} resource.',
  input: storeInputSchema,
  output: storedNodeOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(facade, principal, args) {
    const node = await facade.store(principal, args);
    return { structured: { node_id: node.node_id, reinforced: node.reinforced }, links: [linkToNode(node)] };
  },
});
