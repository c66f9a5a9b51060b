/** Official MCP SDK clients connected to our server over stdio (spawned) or Streamable HTTP. */
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { VersionPinningTransport } from './version-pinning-transport.js';

export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
export const STDIO_FIXTURE = fileURLToPath(new URL('../fixtures/stdio-server-fixture.ts', import.meta.url));

export interface ConnectedClient {
  readonly client: Client;
  readonly transport: VersionPinningTransport;
  close(): Promise<void>;
}

async function connect(inner: ConstructorParameters<typeof VersionPinningTransport>[0], version: string): Promise<ConnectedClient> {
  const transport = new VersionPinningTransport(inner, version);
  const client = new Client({ name: 'hyphae-conformance', version: '1.0.0' });
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

/** Spawns the stdio server with its own runtime; `mint` is `tenant:agent` of the key it mints itself. */
export function connectStdio(version: string, env: Record<string, string>): Promise<ConnectedClient> {
  const inner = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', STDIO_FIXTURE],
    cwd: REPO_ROOT,
    env: { ...getDefaultEnvironment(), ...env },
    stderr: 'pipe',
  });
  return connect(inner, version);
}

export function connectHttp(url: URL, apiKey: string, version: string): Promise<ConnectedClient> {
  const inner = new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-hyphae-key': apiKey } } });
  return connect(inner, version);
}
