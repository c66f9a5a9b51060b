/**
 * A stdio launch of the HydraDB toolset configured by environment (docs/coming-from-hydradb.md,
 * "Connection"): the legacy HYDRA_DB_* names as deprecated aliases (a warning each, the canonical
 * name winning), the deprecated tool names with HYDRADB_MCP_LEGACY_TOOLS=1, the one line for
 * HYDRADB_MCP_GRAPH_TOOLS=1, and a launch naming another database refused before it serves.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HYPHAE_BIN, createEmbeddedDataDir, hyphaeEnv, type EmbeddedDataDir } from '../../support/mcp/sdk-clients.js';
import { desktopConfig, launchStdioEntry } from './hydradb-clients.js';
import { HYDRADB_TOOL_NAMES, LEGACY_ALIASES } from './hydradb-vectors.js';

const TENANT = 'env-tenant';

describe('hyphae mcp --toolset hydradb configured by environment', () => {
  let data: EmbeddedDataDir;
  beforeAll(async () => {
    data = await createEmbeddedDataDir(TENANT, 'env-agent');
  });
  afterAll(async () => data.remove());

  it('reads the legacy names with a warning each, lets the canonical name win, and registers the deprecated tools when asked', async () => {
    const entry = {
      args: desktopConfig(data.key, TENANT).mcpServers.hydradb.args,
      env: { HYDRA_DB_API_KEY: data.key, HYDRADB_DATABASE: TENANT, HYDRA_DB_TENANT_ID: 'not-this-one', HYDRADB_MCP_LEGACY_TOOLS: '1', HYDRADB_MCP_GRAPH_TOOLS: '1' },
    };
    const launched = await launchStdioEntry(entry, data);
    try {
      const { tools } = await launched.client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual([...HYDRADB_TOOL_NAMES, ...Object.keys(LEGACY_ALIASES)]);
      for (const name of Object.keys(LEGACY_ALIASES)) expect(tools.find((tool) => tool.name === name)?.description, name).toMatch(/^Deprecated: use /);
      await launched.client.callTool({ name: 'hydra_db_store', arguments: { text: 'Legacy clients still save notes.', source_id: 'legacy-note' } });
      const listed = await launched.client.callTool({ name: 'hydra_db_list_memories', arguments: {} });
      expect(listed.structuredContent).toMatchObject({ total: 1, items: [{ id: 'legacy-note', kind: 'memory' }] });
      const searched = await launched.client.callTool({ name: 'hydra_db_search', arguments: { query: 'legacy clients' } });
      expect((searched.structuredContent as { results: { id: string }[] }).results[0]?.id).toBe('legacy-note');
      const stderr = launched.stderr();
      expect(stderr).toContain('HYDRA_DB_API_KEY is deprecated: set HYDRADB_API_KEY instead\n');
      expect(stderr).toContain('HYDRA_DB_TENANT_ID is deprecated: set HYDRADB_DATABASE instead (HYDRADB_DATABASE is set and wins)\n');
      expect(stderr.match(/is deprecated/g)).toHaveLength(2);
      expect(stderr).toContain('HYDRADB_MCP_GRAPH_TOOLS=1: the Cypher graph tools (hydradb_graph_query, hydradb_graph_collections, hydradb_graph_admin) are not offered');
      expect(stderr).not.toContain(data.key);
    } finally {
      await launched.close();
    }
  });

  it('refuses a launch whose HYDRADB_DATABASE is not the key’s tenant before it serves', async () => {
    const folder = await mkdtemp(join(tmpdir(), 'hyphae-hydradb-'));
    await cp(data.dir, join(folder, '.hyphae'), { recursive: true });
    try {
      const run = (env: Record<string, string>): Promise<{ code: number; stderr: string }> =>
        promisify(execFile)(process.execPath, [HYPHAE_BIN, 'mcp', '--toolset', 'hydradb'], { cwd: folder, env: hyphaeEnv({ HYDRADB_API_KEY: data.key, ...env }) }).then(
          ({ stderr }) => ({ code: 0, stderr }),
          (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
        );
      const foreign = await run({ HYDRADB_DATABASE: 'someone-else' });
      expect(foreign.code).toBe(2);
      expect(foreign.stderr).toContain('database is not the tenant of your credential');
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});
