import { drainInboxInputSchema } from '../../../core/schemas.js';
import { drainedInboxSchema } from '../../../core/output-schemas.js';
import { linksToDiffs } from '../resources/cell-presentation.js';
import { projectDiff } from './output-shapes.js';
import { defineTool } from './tool-definition.js';
import type { McpTool } from './tool-definition.js';

export const drainInboxTool: McpTool = defineTool({
  name: 'drain_inbox',
  title: 'Drain your inbox',
  description:
    'Take the next page (page_size, at most 500) of diffs gossiped to you: memories matching your beacons that other agents ' +
    'stored, updated, deleted or that were promoted. The server owns and advances your cursor, so each diff is returned once; ' +
    'call again while has_more is true. Each diff carries a preview; its resource_link (hyphae://cells/{node_id}) reads the full cell. ' +
    'This is the guaranteed delivery path: call it at the start of a task and now and then (reading the hyphae://inbox resource shows the same diffs without draining them).',
  input: drainInboxInputSchema,
  output: drainedInboxSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(facade, principal, args) {
    const drained = await facade.drainInbox(principal, args);
    return { structured: { diffs: drained.diffs.map(projectDiff), has_more: drained.has_more }, links: linksToDiffs(drained.diffs) };
  },
});
