import { getSceneInputSchema } from '../../../core/schemas.js';
import { sceneWithCellIdsSchema } from '../../../core/output-schemas.js';
import { linkToNode } from '../resources/cell-presentation.js';
import { projectSceneWithCells } from './output-shapes.js';
import { defineTool } from './tool-definition.js';
import type { McpTool } from './tool-definition.js';

export const getSceneTool: McpTool = defineTool({
  name: 'get_scene',
  title: 'Get a scene',
  description:
    'Read one scene (a group of cells for a task, incident or episode) by scene_id: its project, title, author, cell count, ' +
    'whether it was consolidated, and the ids of its cells, with one resource_link per cell (read it as hyphae://cells/{node_id}).',
  input: getSceneInputSchema,
  output: sceneWithCellIdsSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(facade, principal, args) {
    const scene = await facade.getScene(principal, args.scene_id, { withNodes: true });
    return { structured: projectSceneWithCells(scene), links: (scene.cells ?? []).map(linkToNode) };
  },
});
