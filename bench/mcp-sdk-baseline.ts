/**
 * The baseline of the MCP bench: the official SDK's own server (McpServer +
 * StreamableHTTPServerTransport, stateless, JSON responses) on node:http, serving `list_beacons`
 * through the same facade calls as ours (authenticate the request key, then listBeacons). The
 * SDK's stateless mode takes a fresh server and transport per request, as its documentation shows.
 * The tool declares no outputSchema: the SDK would then validate every result against it, which our
 * dispatcher does not do, and the ratio would compare unequal work (test/bench/mcp-sdk-baseline.test.ts).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { listBeaconsInputSchema } from '../src/core/schemas.js';
import { projectBeacon } from '../src/mcp/features/tools/output-shapes.js';
import type { MemoryFacade } from '../src/service/memory-facade.js';

export interface SdkBaselineServer {
  readonly port: number;
  close(): Promise<void>;
}

function readBody(request: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

function buildSdkServer(facade: MemoryFacade): McpServer {
  const server = new McpServer({ name: 'sdk-baseline', version: '1.0.0' });
  server.registerTool(
    'list_beacons',
    {
      title: 'List your beacons',
      description: 'List the beacons you own.',
      inputSchema: listBeaconsInputSchema,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    },
    async (args, extra) => {
      const key = extra.requestInfo?.headers['x-hyphae-key'];
      const principal = await facade.authenticate(typeof key === 'string' ? key : '');
      const page = await facade.listBeacons(principal, args);
      const payload = { beacons: page.items.map(projectBeacon), next_cursor: page.next_cursor };
      return { content: [{ type: 'text', text: JSON.stringify(payload) }], structuredContent: payload };
    },
  );
  return server;
}

export async function startSdkBaselineServer(facade: MemoryFacade): Promise<SdkBaselineServer> {
  const http: Server = createServer((request, response) => {
    void (async (): Promise<void> => {
      const body: unknown = JSON.parse(await readBody(request));
      const server = buildSdkServer(facade);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      response.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request, response, body);
    })().catch(() => {
      if (!response.headersSent) response.writeHead(500).end();
    });
  });
  http.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return {
    port: (http.address() as AddressInfo).port,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}
