import { storeInputSchema } from '../../core/schemas.js';
import { linkToNode } from '../resources/cell-presentation.js';
import { nodeIdOutput } from './output-shapes.js';
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
    'told about it receive an updated diff. Returns the new node_id and a link to its hyphae://cells/{node_id} resource.',
  input: storeInputSchema,
  output: nodeIdOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(facade, principal, args) {
    const node = await facade.store(principal, args);
    return { structured: { node_id: node.node_id }, links: [linkToNode(node)] };
  },
});
