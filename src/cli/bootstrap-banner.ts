/** What the first embedded start prints: the admin key (once) and ready-to-paste MCP configurations. */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { CreatedApiKey } from '../core/entities.js';

/** The checkout (or installed package) folder, two levels up from src/cli or three from dist/src/cli. */
export function hyphaePackageRoot(): string {
  for (const relative of ['../../', '../../../']) {
    const dir = fileURLToPath(new URL(relative, import.meta.url));
    try {
      if (existsSync(`${dir}package.json`) && (JSON.parse(readFileSync(`${dir}package.json`, 'utf8')) as { name?: unknown }).name === 'hyphae') return dir.replace(/\/$/, '');
    } catch {
      // Not this level: try the next.
    }
  }
  return process.cwd();
}

function indented(value: unknown): string[] {
  return JSON.stringify(value, null, 2)
    .split('\n')
    .map((line) => `    ${line}`);
}

/** `consoleUrl`: where the web console is served (absent when HYPHAE_CONSOLE=off). */
export function bootstrapBannerText(key: CreatedApiKey, baseUrl: string, consoleUrl?: string, packageRoot: string = hyphaePackageRoot()): string {
  const mcpUrl = `${baseUrl.replace(/\/$/, '')}/mcp`;
  const overHttp = { mcpServers: { hyphae: { url: mcpUrl, headers: { 'x-hyphae-key': key.key } } } };
  // Claude Desktop's config file runs local commands only, and its connectors cannot send a header: the stdio bridge carries the key.
  const overStdio = {
    mcpServers: {
      hyphae: { command: 'npx', args: ['-y', '--prefix', packageRoot, 'hyphae', 'mcp', '--remote', mcpUrl], env: { HYPHAE_API_KEY: key.key } },
    },
  };
  return [
    '',
    '  First start: minted an admin key for tenant "default". It is shown only this once:',
    '',
    `    ${key.key}`,
    '',
    '  Cursor (~/.cursor/mcp.json) and other clients that send headers over HTTP:',
    '',
    ...indented(overHttp),
    '',
    '  Claude Code:',
    `    claude mcp add --transport http hyphae ${mcpUrl} --header "x-hyphae-key: ${key.key}"`,
    '',
    '  Claude Desktop (claude_desktop_config.json; it runs the stdio bridge to this server):',
    '',
    ...indented(overStdio),
    '',
    '  claude.ai and Claude Desktop connectors cannot send a key: they sign in with OAuth',
    '  (README, "Connect from claude.ai or ChatGPT").',
    '',
    ...(consoleUrl === undefined ? [] : [`  Web console: ${consoleUrl} (sign in with this key)`, '']),
    '  Give every agent its own key, while the server runs, from another terminal:',
    `    HYPHAE_API_KEY=${key.key} npx hyphae keys create --remote ${baseUrl.replace(/\/$/, '')} --tenant default --agent <name>`,
    '  (or POST /v1/admin/keys with "Authorization: Bearer <this key>", or the web console\'s Admin page).',
    '',
  ].join('\n');
}

export function printBootstrapBanner(key: CreatedApiKey, baseUrl: string, consoleUrl?: string): void {
  // stdout, so `npm start > key.txt` captures it; the rest of the server's output is logs.
  process.stdout.write(`${bootstrapBannerText(key, baseUrl, consoleUrl)}\n`);
}
