import { listBeaconsInputSchema } from '../../../core/schemas.js';
import { beaconsPageSchema } from '../../../core/output-schemas.js';
import { projectBeacon } from './output-shapes.js';
import { defineTool, unlinked } from './tool-definition.js';
import type { McpTool } from './tool-definition.js';

export const listBeaconsTool: McpTool = defineTool({
  name: 'list_beacons',
  title: 'List your beacons',
  description:
    'List the beacons you own (your standing interests), limit per page (default 50). When next_cursor is not null, ' +
    'pass it as cursor to get the next page.',
  input: listBeaconsInputSchema,
  output: beaconsPageSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(facade, principal, args) {
    const page = await facade.listBeacons(principal, args);
    return unlinked({ beacons: page.items.map(projectBeacon), next_cursor: page.next_cursor });
  },
});
