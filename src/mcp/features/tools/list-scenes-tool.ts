import { listScenesInputSchema } from '../../../core/schemas.js';
import { scenesPageSchema } from '../../../core/output-schemas.js';
import { projectScene } from './output-shapes.js';
import { defineTool, unlinked } from './tool-definition.js';
import type { McpTool } from './tool-definition.js';

export const listScenesTool: McpTool = defineTool({
  name: 'list_scenes',
  title: 'List scenes',
  description:
    'List the scenes of the projects you can read, optionally of one project, limit per page (default 50). When ' +
    'next_cursor is not null, pass it as cursor to get the next page.',
  input: listScenesInputSchema,
  output: scenesPageSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(facade, principal, args) {
    const page = await facade.listScenes(principal, args);
    return unlinked({ scenes: page.items.map(projectScene), next_cursor: page.next_cursor });
  },
});
