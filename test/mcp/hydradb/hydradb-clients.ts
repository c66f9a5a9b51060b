/**
 * The two ways a HydraDB client connects, as docs/coming-from-hydradb.md writes them (read from
 * its JSON blocks, so an edit that breaks one fails here): the Claude Desktop entry launched over the SDK's stdio transport (in a folder holding an
 * embedded data folder, the default `./.hyphae`), and the remote entry over Streamable HTTP with
 * its headers.
 */
import { readFileSync } from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { HYPHAE_BIN, type EmbeddedDataDir } from '../../support/mcp/sdk-clients.js';

const GUIDE = readFileSync(new URL('../../../docs/coming-from-hydradb.md', import.meta.url), 'utf8');

/** The `n`th JSON block of docs/coming-from-hydradb.md, with this run's key, tenant and server. */
function guideEntry(n: number, key: string, database: string, base?: URL): unknown {
  const block = [...GUIDE.matchAll(/```json\n([\s\S]*?)```/g)][n]?.[1];
  if (block === undefined) throw new Error(`docs/coming-from-hydradb.md has no JSON block ${n}`);
  const local = block.replaceAll('hy_your_hyphae_key', key).replaceAll('your-tenant', database);
  return JSON.parse(base === undefined ? local : local.replaceAll('http://127.0.0.1:8787/', base.href));
}

/** The guide's Claude Desktop entry (its first block), with a Hyphae key. */
export function desktopConfig(key: string, database: string): { mcpServers: { hydradb: { command: string; args: string[]; env: Record<string, string> } } } {
  return guideEntry(0, key, database) as { mcpServers: { hydradb: { command: string; args: string[]; env: Record<string, string> } } };
}

/** The guide's remote entry (its third block), with Hyphae's URL and a Hyphae key. */
export function remoteConfig(base: URL, key: string, database: string): { mcpServers: { hydradb: { url: string; headers: Record<string, string> } } } {
  return guideEntry(2, key, database, new URL('/', base)) as { mcpServers: { hydradb: { url: string; headers: Record<string, string> } } };
}

export interface HydraClient {
  readonly client: Client;
  /** What the server wrote on stderr (stdio only). */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Launches a stdio entry as a host does: its env over the host's safe defaults, `npx -y --prefix
 * <checkout> hyphae` run as this checkout's bin/hyphae.js, in a fresh folder whose `.hyphae` is a copy of `data`.
 */
export async function launchStdioEntry(entry: { args: string[]; env: Record<string, string> }, data: EmbeddedDataDir): Promise<HydraClient> {
  const folder = await mkdtemp(join(tmpdir(), 'hyphae-hydradb-'));
  await cp(data.dir, join(folder, '.hyphae'), { recursive: true });
  // npx run from any folder finds this checkout's command only through --prefix.
  const npx = entry.args.slice(0, entry.args.indexOf('hyphae'));
  if (npx.join(' ') !== '-y --prefix /path/to/hyphae') throw new Error(`the entry runs npx ${npx.join(' ')}, not this checkout`);
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
