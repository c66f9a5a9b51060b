/** What the first embedded start prints: the admin key (once) and a ready-to-paste MCP configuration. */
import type { CreatedApiKey } from '../core/entities.js';

/** `consoleUrl`: where the web console is served (absent when HYPHAE_CONSOLE=off). */
export function bootstrapBannerText(key: CreatedApiKey, baseUrl: string, consoleUrl?: string): string {
  const mcpUrl = `${baseUrl.replace(/\/$/, '')}/mcp`;
  const config = {
    mcpServers: {
      hyphae: { type: 'http', url: mcpUrl, headers: { 'x-hyphae-key': key.key } },
    },
  };
  return [
    '',
    '  First start: minted an admin key for tenant "default". It is shown only this once:',
    '',
    `    ${key.key}`,
    '',
    '  MCP client configuration (Cursor .cursor/mcp.json, Claude Desktop, any mcpServers file):',
    '',
    ...JSON.stringify(config, null, 2).split('\n').map((line) => `    ${line}`),
    '',
    '  Claude Code:',
    `    claude mcp add --transport http hyphae ${mcpUrl} --header "x-hyphae-key: ${key.key}"`,
    '',
    ...(consoleUrl === undefined ? [] : [`  Web console: ${consoleUrl} (sign in with this key)`, '']),
    '  Give every agent its own key: POST /v1/admin/keys with this key while the server runs,',
    '  or npx hyphae keys create --tenant default --agent <name> while it is stopped.',
    '',
  ].join('\n');
}

export function printBootstrapBanner(key: CreatedApiKey, baseUrl: string, consoleUrl?: string): void {
  // stdout, so `npm start > key.txt` captures it; the rest of the server's output is logs.
  process.stdout.write(`${bootstrapBannerText(key, baseUrl, consoleUrl)}\n`);
}
