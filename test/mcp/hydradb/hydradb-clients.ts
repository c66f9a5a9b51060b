/**
 * The two ways a HydraDB client connects, as its README writes them but for the command and the
 * key: the Claude Desktop entry launched over the SDK's stdio transport (in a folder holding an
 * embedded data folder, the default `./.hyphae`), and the remote entry over Streamable HTTP with
 * its headers.
 */
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HYPHAE_BIN, type EmbeddedDataDir } from '../../support/mcp/sdk-clients.js';

/** README "Claude Desktop", with Hyphae's command and a Hyphae key. */
export function desktopConfig(key: string, database: string): { mcpServers: { hydradb: { command: string; args: string[]; env: Record<string, string> } } } {
  return {
    mcpServers: {
      hydradb: { command: 'npx', args: ['-y', 'hyphae', 'mcp', '--toolset', 'hydradb'], env: { HYDRADB_API_KEY: key, HYDRADB_DATABASE: database } },
    },
  };
}

/** README "Point a client at a URL", with Hyphae's URL and a Hyphae key. */
export function remoteConfig(base: URL, key: string, database: string): { mcpServers: { hydradb: { url: string; headers: Record<string, string> } } } {
  return {
    mcpServers: {
      hydradb: { url: new URL('/mcp?toolset=hydradb', base).href, headers: { Authorization: `Bearer ${key}`, 'X-HydraDB-Database': database } },
    },
  };
}

export interface HydraClient {
  readonly client: Client;
  /** What the server wrote on stderr (stdio only). */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Launches a stdio entry as a host does: its env over the host's safe defaults, `npx -y hyphae` run
 * as this checkout's bin/hyphae.js, in a fresh folder whose `.hyphae` is a copy of `data`.
 */
export async function launchStdioEntry(entry: { args: string[]; env: Record<string, string> }, data: EmbeddedDataDir): Promise<HydraClient> {
  const folder = await mkdtemp(join(tmpdir(), 'hyphae-hydradb-'));
  await cp(data.dir, join(folder, '.hyphae'), { recursive: true });
  const args = entry.args.slice(entry.args.indexOf('hyphae') + 1);
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [HYPHAE_BIN, ...args],
    cwd: folder,
    env: { ...getDefaultEnvironment(), HYPHAE_LOG_LEVEL: 'warn', ...entry.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString('utf8');
  });
  const client = new Client({ name: 'hydradb-conformance', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    close: async () => {
      await client.close();
      await rm(folder, { recursive: true, force: true });
    },
  };
}

export async function connectRemoteEntry(entry: { url: string; headers: Record<string, string> }): Promise<HydraClient> {
  const transport = new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } });
  const client = new Client({ name: 'hydradb-conformance', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => '', close: () => client.close() };
}
