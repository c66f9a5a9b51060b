import { placeBeaconInputSchema } from '../../../core/schemas.js';
import { beaconIdOutput } from './output-shapes.js';
import { defineTool, unlinked } from './tool-definition.js';
import type { McpTool } from './tool-definition.js';

export const placeBeaconTool: McpTool = defineTool({
  name: 'place_beacon',
  title: 'Place a beacon',
  description:
    'Declare a standing interest in natural language (e.g. "database migration risks"). From now on, every new or changed memory ' +
    'similar enough to it (threshold 0–1, cosine similarity) is delivered to your inbox without you asking; read it with ' +
    'drain_inbox or pull_diffs. Narrow it with cell_types, scene_id or project; ttl_seconds makes it expire; include_own also ' +
    'delivers cells you stored yourself. Returns the beacon_id.',
  input: placeBeaconInputSchema,
  output: beaconIdOutput,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(facade, principal, args) {
    const beacon = await facade.placeBeacon(principal, args);
    return unlinked({ beacon_id: beacon.beacon_id });
  },
});
