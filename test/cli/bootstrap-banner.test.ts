// The first-start banner offers each host a configuration it can use: HTTP with the key header for
// clients that send headers (Cursor, Claude Code), and for Claude Desktop — whose config file runs
// local commands and whose connectors cannot send a header — the stdio bridge with the key in env.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { bootstrapBannerText, hyphaePackageRoot } from '../../src/cli/bootstrap-banner.js';
import type { CreatedApiKey } from '../../src/core/entities.js';

const KEY: CreatedApiKey = {
  key: 'hy_0123456789abcdefghijklmnopqrstuvwxyzABCD',
  key_id: '00000000-0000-4000-8000-000000000001',
  tenant: 'default',
  agent: 'admin',
  roles: ['admin'],
  projects: ['*'],
  default_project: 'default',
  trust: 1,
  key_prefix: 'hy_01234',
  created_at: '2026-12-07T00:00:00.000Z',
  revoked_at: null,
};

/** The JSON block printed after the line that names `host`. */
function configAfter(banner: string, host: string): { mcpServers: { hyphae: Record<string, unknown> } } {
  const lines = banner.split('\n');
  const start = lines.findIndex((line) => line.includes(host));
  const open = lines.findIndex((line, i) => i > start && line.trim() === '{');
  const close = lines.findIndex((line, i) => i > open && line === '    }');
  return JSON.parse(lines.slice(open, close + 1).join('\n')) as { mcpServers: { hyphae: Record<string, unknown> } };
}

describe('the first-start banner', () => {
  const banner = bootstrapBannerText(KEY, 'http://127.0.0.1:8787', 'http://127.0.0.1:8787/console/', '/srv/hyphae');

  it('gives Claude Desktop the stdio bridge with the key in its environment, never the HTTP header', () => {
    const desktop = configAfter(banner, 'Claude Desktop').mcpServers.hyphae;
    expect(desktop).toEqual({
      command: 'npx',
      args: ['-y', '--prefix', '/srv/hyphae', 'hyphae', 'mcp', '--remote', 'http://127.0.0.1:8787/mcp'],
      env: { HYPHAE_API_KEY: KEY.key },
    });
    // No line offering the header configuration names Claude Desktop.
    const headerLine = banner.split('\n').find((line) => line.includes('headers over HTTP')) ?? '';
    expect(headerLine).not.toContain('Claude Desktop');
    expect(banner).toContain('OAuth');
  });

  it('gives Cursor and Claude Code the HTTP endpoint with the key header', () => {
    expect(configAfter(banner, 'Cursor').mcpServers.hyphae).toEqual({ url: 'http://127.0.0.1:8787/mcp', headers: { 'x-hyphae-key': KEY.key } });
    expect(banner).toContain(`claude mcp add --transport http hyphae http://127.0.0.1:8787/mcp --header "x-hyphae-key: ${KEY.key}"`);
  });

  it('points npx at this checkout by default', () => {
    expect(existsSync(join(hyphaePackageRoot(), 'bin', 'hyphae.js'))).toBe(true);
  });
});
