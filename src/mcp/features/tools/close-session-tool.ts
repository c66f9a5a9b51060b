import { closeSessionInputSchema } from '../../../core/schemas.js';
import { sessionClosedSchema } from '../../../core/output-schemas.js';
import { defineTool, unlinked } from './tool-definition.js';
import type { McpTool } from './tool-definition.js';

export const closeSessionTool: McpTool = defineTool({
  name: 'close_session',
  title: 'Close a working session',
  description:
    'End a session you opened with open_session. Your current project falls back to your previous open session, else to your ' +
    "key's default project. Closing an already closed session is harmless.",
  input: closeSessionInputSchema,
  output: sessionClosedSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(facade, principal, args) {
    const closed = await facade.closeSession(principal, args);
    return unlinked({ session_id: closed.session_id, closed_at: closed.closed_at });
  },
});
