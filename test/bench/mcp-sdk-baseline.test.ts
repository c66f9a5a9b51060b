/**
 * The MCP bench compares our /mcp with the official SDK's server doing the same work. Neither side
 * validates its tool output against the outputSchema (our dispatcher does not; the SDK's McpServer
 * would if the tool declared one), so a page that breaks the schema passes through both alike.
 */
import type { AddressInfo } from 'node:net';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerMcpRoutes } from '../../src/mcp/transports/http-routes.js';
import type { MemoryFacade } from '../../src/service/memory-facade.js';
import { startSdkBaselineServer } from '../../bench/mcp-sdk-baseline.js';
import type { SdkBaselineServer } from '../../bench/mcp-sdk-baseline.js';
import { DOUBLE_BEACON, DOUBLE_KEY, createProtocolFacadeDouble } from '../support/mcp/protocol-facade-double.js';

// A threshold outside [0, 1]: what an output check would refuse.
const OFF_SCHEMA_BEACON = { ...DOUBLE_BEACON, threshold: 7 };

async function callListBeacons(port: number): Promise<unknown> {
  const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-hyphae-key': DOUBLE_KEY, 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_beacons', arguments: {} } }),
  });
  expect(response.status).toBe(200);
  return response.json();
}

describe('the MCP bench baseline does the same work as our server', () => {
  const facade: MemoryFacade = { ...createProtocolFacadeDouble(), listBeacons: async () => ({ items: [OFF_SCHEMA_BEACON], next_cursor: null }) };
  const ours = Fastify({ logger: false });
  let sdk: SdkBaselineServer;

  beforeAll(async () => {
    registerMcpRoutes(ours, { facade });
    await ours.listen({ host: '127.0.0.1', port: 0 });
    sdk = await startSdkBaselineServer(facade);
  });
  afterAll(async () => {
    await ours.close();
    await sdk.close();
  });

  it('neither side validates output: the same off-schema page comes back from both', async () => {
    const expected = { beacons: [expect.objectContaining({ beacon_id: DOUBLE_BEACON.beacon_id, threshold: 7 })], next_cursor: null };
    const fromOurs = (await callListBeacons((ours.server.address() as AddressInfo).port)) as { result: { isError?: boolean; structuredContent: unknown } };
    const fromSdk = (await callListBeacons(sdk.port)) as { result: { isError?: boolean; structuredContent: unknown } };
    expect(fromOurs.result.structuredContent).toEqual(expected);
    expect(fromSdk.result.isError ?? false).toBe(false);
    expect(fromSdk.result.structuredContent).toEqual(fromOurs.result.structuredContent);
  });
});
