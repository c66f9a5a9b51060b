import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRemoteBridge } from '../../src/mcp/transports/remote-bridge.js';
import { createTestRuntime } from '../support/test-runtime.js';
import type { MintedKey, TestRuntime } from '../support/test-runtime.js';
import { startMcpHttpServer } from './mcp-http-server.js';
import type { ListeningMcpServer } from './mcp-http-server.js';

let runtime: TestRuntime;
let server: ListeningMcpServer;
let carol: MintedKey;
beforeAll(async () => {
  runtime = await createTestRuntime();
  server = await startMcpHttpServer(runtime.facade);
  carol = await runtime.mintKey({ tenant: 'bridge', agent: 'carol' });
});
afterAll(async () => {
  await server.close();
  await runtime.close();
});

/** Feeds lines through a bridge and returns every line it wrote, once input has ended. */
async function bridge(url: string, apiKey: string, lines: unknown[]): Promise<Record<string, unknown>[]> {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString('utf8')));
  const done = runRemoteBridge({ url, apiKey, input, output });
  for (const line of lines) input.write(`${typeof line === 'string' ? line : JSON.stringify(line)}\n`);
  input.end();
  await done;
  return written
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 't', version: '1' } } };

describe('remote bridge', () => {
  it('forwards requests, drops notification acknowledgements and sends the negotiated revision', async () => {
    const replies = await bridge(server.url.href, carol.key, [
      INITIALIZE,
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'store', arguments: { content: 'Bridged memory', cell_type: 'Fact' } } },
      // Under 2025-11-25 (sent as MCP-Protocol-Version) a schema failure is an isError result.
      { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'list_beacons', arguments: { limit: 0 } } },
    ]);
    expect(replies.map((reply) => reply.id)).toEqual([1, 2, 3]);
    const stored = (replies[1]?.result as { structuredContent: { node_id: string } }).structuredContent;
    expect((await runtime.facade.getCell(carol.principal, stored.node_id)).source_agent).toBe('carol');
    expect((replies[2]?.result as { isError: boolean }).isError).toBe(true);
  });

  it('gives transport errors back the id of the request they answer', async () => {
    const replies = await bridge(server.url.href, 'hyk_wrong', [INITIALIZE, { jsonrpc: '2.0', method: 'notifications/initialized' }]);
    expect(replies).toHaveLength(1);
    expect(replies[0]).toMatchObject({ id: 1, error: { code: -32001, data: { code: 'UNAUTHENTICATED' } } });
  });

  it('passes parse errors through and answers an unreachable server with UNAVAILABLE', async () => {
    expect((await bridge(server.url.href, carol.key, ['{oops']))[0]).toMatchObject({ id: null, error: { code: -32700 } });
    const unreachable = await bridge('http://127.0.0.1:1/mcp', carol.key, [INITIALIZE]);
    expect(unreachable[0]).toMatchObject({ id: 1, error: { code: -32007, data: { code: 'UNAVAILABLE' } } });
  });
});
