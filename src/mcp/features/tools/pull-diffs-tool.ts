import { pullDiffsInputSchema } from '../../../core/schemas.js';
import { diffsSinceSchema } from '../../../core/output-schemas.js';
import { linksToDiffs } from '../resources/cell-presentation.js';
import { projectDiff } from './output-shapes.js';
import { defineTool } from './tool-definition.js';
import type { McpTool } from './tool-definition.js';

export const pullDiffsTool: McpTool = defineTool({
  name: 'pull_diffs',
  title: 'Pull diffs since a time',
  description:
    'Read the diffs (memories created, updated, deleted or promoted that matched your beacons) delivered to you after a ' +
    'timestamp, oldest first, up to limit (at most 500). Does not move your inbox cursor; pass next_since as since to continue. ' +
    'Each diff carries a preview of the cell and a resource_link; read the full cell through its hyphae://cells/{node_id} resource.',
  input: pullDiffsInputSchema,
  output: diffsSinceSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(facade, principal, args) {
    const pulled = await facade.pullDiffs(principal, args);
    return { structured: { diffs: pulled.diffs.map(projectDiff), next_since: pulled.next_since }, links: linksToDiffs(pulled.diffs) };
  },
});
