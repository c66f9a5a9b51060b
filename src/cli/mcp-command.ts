/**
 * `hyphae mcp`: MCP over stdio for one agent. stdout carries protocol messages only; every
 * diagnostic goes to stderr. Identity is HYPHAE_API_KEY, resolved once at start; a missing or
 * bad key prints why on stderr and exits with code 2.
 *   embedded (default)        its own PGlite data folder
 *   direct                    HYPHAE_DATABASE_URL (+ HYPHAE_NATS_URL for cross-replica gossip)
 *   --remote URL              bridges stdio to a running server's /mcp (agents share one memory)
 */
import { openHyphaeApp } from '../app/index.js';
import { loadProcessConfig } from '../core/config.js';
import { isHyphaeError } from '../core/errors.js';
import { runRemoteBridge } from '../mcp/transports/remote-bridge.js';
import { resolveStdioPrincipal, runStdioServer } from '../mcp/transports/stdio-server.js';
import { channelSettingsOf } from '../mcp/features/push/channel-settings.js';
import { configFlags, parseCommand } from './args.js';
import { bridgedHydraHeaders, printsStartLine, stdioHydraCall, stdioToolsets } from './mcp-toolsets.js';
import type { ToolsetChoice } from '../mcp/index.js';

const MCP_USAGE = 'Usage: HYPHAE_API_KEY=hy_… hyphae mcp [--toolset hyphae,hydradb] [--remote URL] [--data-dir D] [--database-url URL] [--nats-url URL] [--embedder E]\n';

function stderrLog(message: string): void {
  process.stderr.write(`hyphae mcp: ${message}\n`);
}

export async function runMcpCommand(argv: readonly string[]): Promise<void> {
  const parsed = parseCommand(argv, { remote: { type: 'string' }, toolset: { type: 'string' } });
  if (parsed.values.help === true) {
    process.stderr.write(MCP_USAGE);
    return;
  }
  const abort = new AbortController();
  const stop = (): void => abort.abort();
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);

  const remote = parsed.values.remote;
  if (typeof remote === 'string') {
    // Read and validated like every setting, though the bridge needs only the key and the channel switch.
    const settings = loadProcessConfig();
    const launch = stdioToolsets(settings, parsed.values.toolset, stderrLog);
    const apiKey = launch.apiKey?.trim();
    if (apiKey === undefined || apiKey === '') {
      stderrLog('HYPHAE_API_KEY is not set: mint this agent a key (`hyphae keys create --remote URL --agent NAME` with an admin key in HYPHAE_API_KEY while the server runs) and pass it in the environment');
      process.exitCode = 2;
      return;
    }
    await runRemoteBridge({
      url: withToolsets(mcpEndpoint(remote), parsed.values.toolset === undefined ? undefined : launch.choice),
      apiKey,
      input: process.stdin,
      output: process.stdout,
      log: stderrLog,
      signal: abort.signal,
      push: true,
      channel: settings.channel.enabled,
      headers: bridgedHydraHeaders(launch),
    });
    return;
  }

  const config = loadProcessConfig(configFlags(parsed.values));
  const launch = stdioToolsets(config, parsed.values.toolset, stderrLog);
  const hyphae = await openHyphaeApp(config, {
    command: 'hyphae mcp',
    onBackgroundError: (error) => stderrLog(`background task failed: ${error instanceof Error ? error.message : String(error)}`),
  });
  try {
    let principal;
    let hydradb;
    try {
      principal = await resolveStdioPrincipal(hyphae.facade, launch.apiKey);
      if (launch.choice.toolsets.includes('hydradb')) hydradb = stdioHydraCall(principal, launch.hydra);
    } catch (error) {
      stderrLog(isHyphaeError(error) ? error.message : 'could not resolve HYPHAE_API_KEY');
      process.exitCode = 2;
      return;
    }
    if (printsStartLine(launch.hydra)) stderrLog(`serving agent "${principal.agent}" of tenant "${principal.tenantId}" on stdio (toolsets ${launch.choice.toolsets.join(', ')})`);
    const channel = channelSettingsOf(config.channel);
    await runStdioServer({
      facade: hyphae.facade,
      principal,
      input: process.stdin,
      output: process.stdout,
      log: stderrLog,
      signal: abort.signal,
      observer: hyphae.metrics,
      ...(channel === undefined ? {} : { channel }),
      toolsets: launch.choice,
      ...(hydradb === undefined ? {} : { hydradb }),
    });
  } finally {
    await hyphae.close();
  }
}

/** Accepts the server's base URL or its /mcp endpoint. */
export function mcpEndpoint(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return trimmed.endsWith('/mcp') ? trimmed : `${trimmed}/mcp`;
}

/** The endpoint asking for the launch's toolsets (docs/mcp.md, "Toolsets"); the server's own default when the flag is absent. */
function withToolsets(endpoint: string, choice: ToolsetChoice | undefined): string {
  if (choice === undefined) return endpoint;
  const url = new URL(endpoint);
  url.searchParams.set('toolset', choice.toolsets.join(','));
  return url.href;
}
