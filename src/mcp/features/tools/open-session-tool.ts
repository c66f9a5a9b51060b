import { openSessionInputSchema } from '../../../core/schemas.js';
import { sessionOpenedSchema } from '../../../core/output-schemas.js';
import { defineTool, unlinked } from './tool-definition.js';
import type { McpTool } from './tool-definition.js';

export const openSessionTool: McpTool = defineTool({
  name: 'open_session',
  title: 'Open a working session',
  description:
    'Start working in a project: opens a session and creates its scene. While it is open, the project is your current project, ' +
    'store writes into it, cells you store without scene_id join the scene, and recall/query search it. Call close_session with ' +
    'the returned session_id when the work is done.',
  input: openSessionInputSchema,
  output: sessionOpenedSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(facade, principal, args) {
    const opened = await facade.openSession(principal, args);
    return unlinked({ session_id: opened.session_id, scene_id: opened.scene_id, opened_at: opened.opened_at });
  },
});
