/**
 * The README, followed line by line in a fresh clone (its tracked files, the checkout's
 * node_modules): the first command block's `npm start`, the admin key read off the banner, a second
 * agent's key minted while the server runs (`keys create --remote`), two official MCP SDK clients configured from the README's
 * HTTP configuration (Streamable HTTP), one stores and the other hears the push on its GET /mcp
 * stream and recalls it, the console page the README names, and the banner's Claude Desktop entry
 * (the stdio bridge) run as written. The commands come from the README's own code blocks, so an
 * edit that breaks one fails here.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, readFile, symlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, runHyphae, startHyphae, type RunningServer } from '../support/cli-process.js';
import { shellWords } from '../support/release-sources.js';
import { KEY_PATTERN, userEnv, workFolder, type WorkFolder } from '../support/product-fixtures.js';
import { waitFor } from '../support/wait-for.js';

/** The fenced blocks of `lang` under the heading `heading` (up to the next heading of any level). */
function blocksUnder(markdown: string, heading: string, lang: string): string[] {
  const start = markdown.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`README has no heading "${heading}"`);
  const rest = markdown.slice(start + heading.length + 2);
  const section = rest.slice(0, rest.search(/\n#{1,6} /) < 0 ? undefined : rest.search(/\n#{1,6} /));
  return [...section.matchAll(new RegExp(`\`\`\`${lang}\\n([\\s\\S]*?)\`\`\``, 'g'))].map((m) => m[1] as string);
}

/** The first command line of a block that runs `needle`, its comment dropped. */
function commandLine(block: string, needle: string): string {
  const line = block.split('\n').find((l) => l.includes(needle));
  if (line === undefined) throw new Error(`no command with "${needle}" in:\n${block}`);
  return line.replace(/\s+#.*$/, '').trim();
}

/** The README's placeholders, swapped for what this run has. */
function localised(text: string, url: string, key: string): string {
  return text.replaceAll('http://127.0.0.1:8787', url).replaceAll('hy_…', key);
}

interface McpServerEntry {
  readonly url?: string;
  readonly headers?: Record<string, string>;
  readonly command?: string;
  readonly args?: string[];
  readonly env?: Record<string, string>;
}

/** The JSON block printed under the banner line naming `host`. */
function bannerEntry(banner: string, host: string): McpServerEntry {
  const lines = banner.split('\n');
  const start = lines.findIndex((line) => line.includes(host));
  const open = lines.findIndex((line, i) => i > start && line.trim() === '{');
  const close = lines.findIndex((line, i) => i > open && line === '    }');
  if (start < 0 || open < 0 || close < 0) throw new Error(`no configuration for ${host} in the banner:\n${banner}`);
  return (JSON.parse(lines.slice(open, close + 1).join('\n')) as { mcpServers: { hyphae: McpServerEntry } }).mcpServers.hyphae;
}

describe('the README, line by line, in a fresh clone', { timeout: 600_000 }, () => {
  let folder: WorkFolder;
  let clone = '';
  let readme = '';
  let server: RunningServer | undefined;
  let adminKey = '';
  let bobKey = '';
  const clients: Client[] = [];

  beforeAll(async () => {
    folder = await workFolder();
    clone = join(folder.dir, 'hyphae');
    const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: REPO_ROOT, encoding: 'utf8' }).split('\0').filter((path) => path !== '');
    for (const path of tracked) {
      if (!existsSync(join(REPO_ROOT, path))) continue;
      await mkdir(dirname(join(clone, path)), { recursive: true });
      await cp(join(REPO_ROOT, path), join(clone, path));
    }
    // `npm install` is the README's first half; the checkout's dependencies stand in for it.
    await symlink(join(REPO_ROOT, 'node_modules'), join(clone, 'node_modules'), 'dir');
    readme = await readFile(join(clone, 'README.md'), 'utf8');
  });
  afterAll(async () => {
    for (const client of clients) await client.close().catch(() => undefined);
    await server?.stop();
    await folder?.remove();
  });

  it('starts with the first block’s `npm start` and prints the admin key once, with configurations that name this server', async () => {
    const first = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const start = commandLine(first, 'npm start');
    expect(start.split('&&').map((part) => part.trim())).toEqual(['npm install', 'npm start']);
    // Port 0 and no gRPC port: other tests run beside this one; everything else is the default.
    server = await startHyphae(['start', '--', '--port', '0'], userEnv({ HYPHAE_GRPC_PORT: '0' }), /serving on (http:\/\/[^\s]+)/, {
      command: 'npm',
      args: [],
      cwd: clone,
      signalGroup: true,
    });
    await waitFor('the banner', () => server?.stdout().includes('Web console') === true, 30_000, 50);
    adminKey = KEY_PATTERN.exec(server.stdout())?.[0] ?? '';
    expect(adminKey).not.toBe('');
    expect(existsSync(join(clone, '.hyphae'))).toBe(true);
  });

  it('mints a second agent’s key while the server runs, with the README’s `keys create --remote` command', async () => {
    const url = server?.url ?? '';
    const mint = blocksUnder(readme, '## Connect an MCP client', 'sh')[0] ?? '';
    // `HYPHAE_API_KEY=hy_…admin… npx hyphae keys create --remote URL --tenant default --agent bob`: the clear key alone on stdout.
    const words = shellWords(commandLine(mint, 'keys create').replaceAll('http://127.0.0.1:8787', url));
    expect(words).toContain('--remote');
    const env: Record<string, string> = {};
    while (/^[A-Z_]+=/.test(words[0] ?? '')) {
      const [name, ...value] = (words.shift() as string).split('=');
      env[name as string] = value.join('=');
    }
    expect(Object.keys(env)).toEqual(['HYPHAE_API_KEY']);
    env.HYPHAE_API_KEY = adminKey;
    expect(words.slice(0, 2)).toEqual(['npx', 'hyphae']);
    const minted = await runHyphae(words.slice(2), userEnv(env), undefined, { command: 'npx', args: ['hyphae'], cwd: clone });
    expect(minted.code, minted.stderr).toBe(0);
    bobKey = minted.stdout.trim();
    expect(bobKey).toMatch(new RegExp(`^${KEY_PATTERN.source}$`));
    expect(bobKey).not.toBe(adminKey);
  });

  it.skipIf(spawnSync('curl', ['--version']).status !== 0)('mints another over REST with the README’s curl command', () => {
    const curl = blocksUnder(readme, '## Connect an MCP client', 'sh')[1] ?? '';
    expect(curl).toContain('curl');
    const script = curl.replaceAll('http://127.0.0.1:8787', server?.url ?? '').replaceAll('hy_…admin…', adminKey).replaceAll('"agent":"bob"', '"agent":"carol"');
    const r = spawnSync('bash', ['-euo', 'pipefail', '-c', script], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { agent: string; key: string })).toMatchObject({ agent: 'carol', key: expect.stringMatching(KEY_PATTERN) });
  });

  it('connects two SDK clients from the README’s HTTP configuration; a store by one is pushed to the other, which recalls it', async () => {
    const url = server?.url ?? '';
    const cursor = blocksUnder(readme, '### Cursor (`~/.cursor/mcp.json` or `.cursor/mcp.json`)', 'json')[0] ?? '';
    const connect = async (key: string): Promise<Client> => {
      const entry = (JSON.parse(localised(cursor, url, key)) as { mcpServers: { hyphae: McpServerEntry } }).mcpServers.hyphae;
      const client = new Client({ name: 'readme-walkthrough', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(entry.url ?? ''), { requestInit: { headers: entry.headers ?? {} } }));
      clients.push(client);
      return client;
    };
    const alice = await connect(adminKey);
    const bob = await connect(bobKey);

    const heard: string[] = [];
    bob.setNotificationHandler(ResourceUpdatedNotificationSchema, async (notification) => {
      heard.push(notification.params.uri);
    });
    const beacon = await bob.callTool({ name: 'place_beacon', arguments: { text: 'how customers are billed and invoiced', threshold: 0.3 } });
    expect(beacon.isError, JSON.stringify(beacon)).toBe(false);
    await bob.subscribeResource({ uri: 'hyphae://inbox' });

    const stored = await alice.callTool({ name: 'store', arguments: { content: 'Invoices are emailed to customers as PDF attachments.', cell_type: 'Fact' } });
    expect(stored.isError, JSON.stringify(stored)).toBe(false);
    const nodeId = (stored.structuredContent as { node_id: string }).node_id;
    await waitFor('bob hears the inbox update on his GET /mcp stream', () => heard.includes('hyphae://inbox'), 30_000, 50);

    const inbox = await bob.readResource({ uri: 'hyphae://inbox' });
    expect((inbox.contents[0] as { text: string }).text).toContain('Invoices are emailed to customers');
    const recalled = await bob.callTool({ name: 'recall', arguments: { query: 'how do clients receive their bills?', k: 3 } });
    expect((recalled.structuredContent as { results: { node_id: string }[] }).results[0]?.node_id).toBe(nodeId);
  });

  it('serves the console page the README names', async () => {
    const consolePath = /<http:\/\/127\.0\.0\.1:8787(\/console\/)>/.exec(readme)?.[1];
    expect(consolePath).toBe('/console/');
    const page = await fetch(`${server?.url ?? ''}${consolePath ?? ''}`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<script');
  });

  it('runs the banner’s Claude Desktop entry as written: the stdio bridge to this server, with the key in its environment', async () => {
    const desktop = bannerEntry(server?.stdout() ?? '', 'Claude Desktop');
    expect(desktop.headers).toBeUndefined();
    expect(desktop.args).toContain(clone.replace(/\/$/, ''));
    const client = new Client({ name: 'claude-desktop-stand-in', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({ command: desktop.command ?? '', args: desktop.args ?? [], env: userEnv(desktop.env ?? {}), cwd: folder.dir, stderr: 'pipe' }),
    );
    clients.push(client);
    const recalled = await client.callTool({ name: 'recall', arguments: { query: 'how do clients receive their bills?', k: 3 } });
    expect(recalled.isError, JSON.stringify(recalled)).toBe(false);
    expect((recalled.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0);
  });
});
