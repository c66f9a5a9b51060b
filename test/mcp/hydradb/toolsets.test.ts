/**
 * Toolsets (docs/mcp.md, "Toolsets"): with the HydraDB toolset off, tools/list is byte for byte the
 * eleven tools' list the registry made before toolsets existed; on, the HydraDB tools follow them
 * (alone with `toolset=hydradb`), and the deprecated names only with HYDRADB_MCP_LEGACY_TOOLS=1.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/core/config.js';
import { toolRoster } from '../../../src/mcp/features/toolsets.js';
import { MCP_TOOLS, TOOLS_LIST_RESULT_JSON } from '../../../src/mcp/features/tools/tool-registry.js';
import { createTestRuntime, type TestRuntime } from '../../support/test-runtime.js';
import { startHydraServer } from './hydradb-server.js';
import { HYDRADB_TOOL_NAMES, LEGACY_ALIASES } from './hydradb-vectors.js';

/** Today's roster, in its order (the tool guide of docs/mcp.md). */
const ELEVEN = ['store', 'recall', 'query', 'open_session', 'close_session', 'place_beacon', 'list_beacons', 'pull_diffs', 'get_scene', 'list_scenes', 'drain_inbox'];

describe('toolsets', () => {
  let runtime: TestRuntime;
  let app: FastifyInstance;
  let key: string;
  beforeAll(async () => {
    runtime = await createTestRuntime();
    const config = loadConfig({ HYDRADB_MCP_LEGACY_TOOLS: '1' });
    ({ app } = await startHydraServer(runtime.facade, { toolsets: { toolsets: config.mcpToolsets.toolsets, legacyTools: config.mcpToolsets.legacyTools } }));
    ({ key } = await runtime.mintKey({ tenant: 'toolsets', agent: 'a' }));
  });
  afterAll(async () => {
    await app.close();
    await runtime.close();
  });

  const toolsList = async (query: string): Promise<{ status: number; body: string }> => {
    const response = await app.inject({
      method: 'POST',
      url: `/mcp${query}`,
      headers: { 'content-type': 'application/json', 'x-hyphae-key': key, 'x-hydradb-database': 'toolsets' },
      payload: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    return { status: response.statusCode, body: response.body };
  };

  it('serves hyphae alone by default, and its list is the eleven tools’ text byte for byte', async () => {
    expect(loadConfig({}).mcpToolsets.toolsets).toEqual(['hyphae']);
    expect(MCP_TOOLS.map((tool) => tool.name)).toEqual(ELEVEN);
    for (const query of ['', '?toolset=hyphae', '?toolset=HYPHAE,hyphae']) {
      const { status, body } = await toolsList(query);
      expect(status).toBe(200);
      expect(body).toBe(`{"jsonrpc":"2.0","id":1,"result":${TOOLS_LIST_RESULT_JSON}}`);
    }
    expect(toolRoster({ toolsets: ['hyphae'], legacyTools: true }).listResult.text).toBe(TOOLS_LIST_RESULT_JSON);
  });

  it('adds the HydraDB tools after the eleven, or serves them alone, with the deprecated names when asked', async () => {
    const names = (body: string): string[] => (JSON.parse(body) as { result: { tools: { name: string }[] } }).result.tools.map((tool) => tool.name);
    expect(names((await toolsList('?toolset=hyphae,hydradb')).body)).toEqual([...ELEVEN, ...HYDRADB_TOOL_NAMES, ...Object.keys(LEGACY_ALIASES)]);
    expect(names((await toolsList('?toolset=hydradb')).body)).toEqual([...HYDRADB_TOOL_NAMES, ...Object.keys(LEGACY_ALIASES)]);
    expect(JSON.parse(toolRoster({ toolsets: ['hydradb'] }).listResult.text).tools.map((tool: { name: string }) => tool.name)).toEqual([...HYDRADB_TOOL_NAMES]);
  });

  it('refuses a toolset parameter naming none of them', async () => {
    for (const query of ['?toolset=cypher', '?toolset=', '?toolset=hyphae,graph']) {
      const { status, body } = await toolsList(query);
      expect(status, query).toBe(400);
      expect(JSON.parse(body)).toMatchObject({ error: { data: { code: 'INVALID_ARGUMENT' } } });
    }
  });
});
