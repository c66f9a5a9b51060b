import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestRuntime, type TestRuntime } from '../../../../test/support/test-runtime.js';
import type { McpSession } from '../../server/handshake-methods.js';
import { McpDispatcher } from '../../server/mcp-dispatcher.js';
import { createMcpFeatures } from '../mcp-features.js';

describe('McpDispatcher call observer', () => {
  let runtime: TestRuntime;
  beforeAll(async () => {
    runtime = await createTestRuntime();
  });
  afterAll(async () => {
    await runtime.close();
  });

  it('reports every tools/call with its tool and outcome: ok, invalid (schema) and error (facade)', async () => {
    const seen: { tool: string; outcome: string; seconds: number }[] = [];
    const dispatcher = new McpDispatcher({
      features: createMcpFeatures({ facade: runtime.facade, observer: { observeMcpCall: (tool, outcome, seconds) => seen.push({ tool, outcome, seconds }) } }),
    });
    const session: McpSession = { principal: await runtime.principal({ tenant: 'observed', agent: 'a' }), protocolVersion: '2025-11-25' };
    const call = (id: number, name: string, args: Record<string, unknown>): Promise<unknown> =>
      dispatcher.handleValue({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } }, session);

    await call(1, 'store', { content: 'Observed cell', cell_type: 'Fact' });
    await call(2, 'store', { content: 'x', cell_type: 'Nonsense' });
    await call(3, 'get_scene', { scene_id: '00000000-0000-4000-8000-000000000000' });
    await dispatcher.handleValue({ jsonrpc: '2.0', id: 4, method: 'ping' }, session);

    expect(seen.map(({ tool, outcome }) => `${tool}:${outcome}`)).toEqual(['store:ok', 'store:invalid', 'get_scene:error']);
    for (const entry of seen) expect(entry.seconds).toBeGreaterThanOrEqual(0);
  });
});
