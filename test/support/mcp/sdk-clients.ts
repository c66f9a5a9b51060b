/** Official MCP SDK clients connected to our server over stdio (spawned) or Streamable HTTP. */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { VersionPinningTransport } from './version-pinning-transport.js';

export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const HYPHAE_BIN = join(REPO_ROOT, 'bin', 'hyphae.js');

/** Environment of a spawned `hyphae`: the SDK's safe defaults, nothing of ours leaking in, so every default applies (the embedder included). */
export function hyphaeEnv(extra: Record<string, string>): Record<string, string> {
  return { ...getDefaultEnvironment(), HYPHAE_LOG_LEVEL: 'warn', ...extra };
}

export interface EmbeddedDataDir {
  readonly dir: string;
  readonly key: string;
  remove(): Promise<void>;
}

/** An embedded data folder with one key minted by `hyphae keys create` (the clear key is stdout's last line). */
export async function createEmbeddedDataDir(tenant: string, agent: string): Promise<EmbeddedDataDir> {
  const dir = await mkdtemp(join(tmpdir(), 'hyphae-mcp-test-'));
  const { stdout } = await promisify(execFile)(process.execPath, [HYPHAE_BIN, 'keys', 'create', '--tenant', tenant, '--agent', agent], {
    cwd: REPO_ROOT,
    env: hyphaeEnv({ HYPHAE_DATA_DIR: dir }),
  });
  const key = stdout.trim().split('\n').pop()?.trim() ?? '';
  return { dir, key, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** A copy of a closed data folder: one per process, since PGlite opens a folder from one process only. */
export async function cloneDataDir(source: EmbeddedDataDir): Promise<EmbeddedDataDir> {
  const dir = await mkdtemp(join(tmpdir(), 'hyphae-mcp-test-'));
  await cp(source.dir, dir, { recursive: true });
  return { dir, key: source.key, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface ConnectedClient {
  readonly client: Client;
  readonly transport: VersionPinningTransport;
  close(): Promise<void>;
}

/** Runs on the client before it connects: where a host registers its notification handlers, so none is missed. */
export type PrepareClient = (client: Client) => void;

async function connect(inner: ConstructorParameters<typeof VersionPinningTransport>[0], version: string, prepare?: PrepareClient): Promise<ConnectedClient> {
  const transport = new VersionPinningTransport(inner, version);
  const client = new Client({ name: 'hyphae-conformance', version: '1.0.0' });
  prepare?.(client);
  await client.connect(transport);
  return { client, transport, close: () => client.close() };
}

/** Spawns `hyphae mcp` (embedded, on its own data folder) as an agent's MCP host would. */
export function connectStdio(version: string, dataDir: EmbeddedDataDir, env: Record<string, string> = {}, prepare?: PrepareClient): Promise<ConnectedClient> {
  const inner = new StdioClientTransport({
    command: process.execPath,
    args: [HYPHAE_BIN, 'mcp'],
    cwd: REPO_ROOT,
    env: hyphaeEnv({ HYPHAE_DATA_DIR: dataDir.dir, HYPHAE_API_KEY: dataDir.key, ...env }),
    stderr: 'pipe',
  });
  return connect(inner, version, prepare);
}

export function connectHttp(url: URL, apiKey: string, version: string, headers: Record<string, string> = {}, prepare?: PrepareClient): Promise<ConnectedClient> {
  const inner = new StreamableHTTPClientTransport(url, { requestInit: { headers: { 'x-hyphae-key': apiKey, ...headers } } });
  return connect(inner, version, prepare);
}

/** Spawns `hyphae mcp --remote URL`: stdio bridged to a running server's /mcp. */
export function connectBridge(version: string, url: URL, apiKey: string, env: Record<string, string> = {}, prepare?: PrepareClient): Promise<ConnectedClient> {
  const inner = new StdioClientTransport({
    command: process.execPath,
    args: [HYPHAE_BIN, 'mcp', '--remote', url.href],
    cwd: REPO_ROOT,
    env: hyphaeEnv({ HYPHAE_API_KEY: apiKey, ...env }),
    stderr: 'pipe',
  });
  return connect(inner, version, prepare);
}
