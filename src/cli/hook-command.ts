/**
 * `hyphae hook`: for agent-host hooks (Claude Code `SessionStart` / `UserPromptSubmit`). Prints
 * on stdout what reached the agent's inbox since the hook's last call (nothing when nothing did),
 * and keeps its cursor in a small state file of its own. Identity is HYPHAE_API_KEY.
 *   --remote URL   read from a running server (what a host next to `hyphae serve` uses)
 *   otherwise      the embedded data folder or HYPHAE_DATABASE_URL, like `hyphae mcp`
 * It never exits with 2, which Claude Code takes as "block this prompt": failures print on stderr
 * and exit 1, which the host shows and goes on.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { openHyphaeApp } from '../app/index.js';
import { loadProcessConfig } from '../core/config.js';
import { isHyphaeError } from '../core/errors.js';
import { hookReport, DEFAULT_HOOK_LIMIT } from '../mcp/client/hook-report.js';
import { facadeInboxReader, remoteInboxReader } from '../mcp/client/inbox-reader.js';
import type { InboxReader } from '../mcp/client/inbox-reader.js';
import { resolveStdioPrincipal } from '../mcp/transports/stdio-server.js';
import { configFlags, parseCommand } from './args.js';
import { mcpEndpoint } from './mcp-command.js';

const HOOK_USAGE =
  'Usage: HYPHAE_API_KEY=hy_… hyphae hook [--remote URL] [--limit N] [--state-dir D] [--data-dir D] [--database-url URL] [--embedder E]\n';

/** Where the cursor lives: one file per (server or database, key); the key itself is only hashed. */
function stateFile(stateDir: string | undefined, stateHome: string | undefined, target: string, apiKey: string): string {
  const base = stateDir ?? join(stateHome ?? join(homedir(), '.local', 'state'), 'hyphae');
  const id = createHash('sha256').update(`${target}\u0000${apiKey}`).digest('hex').slice(0, 24);
  return join(base, `hook-${id}.json`);
}

async function readCursor(file: string): Promise<number> {
  try {
    const value: unknown = JSON.parse(await readFile(file, 'utf8'));
    const seq = typeof value === 'object' && value !== null ? (value as { after_seq?: unknown }).after_seq : undefined;
    return typeof seq === 'number' && Number.isSafeInteger(seq) && seq >= 0 ? seq : 0;
  } catch {
    return 0;
  }
}

async function writeCursor(file: string, afterSeq: number): Promise<void> {
  await mkdir(dirname(file), { recursive: true, mode: 0o700 });
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify({ after_seq: afterSeq })}\n`, { mode: 0o600 });
  await rename(temporary, file);
}

function fail(message: string): void {
  process.stderr.write(`hyphae hook: ${message}\n`);
  process.exitCode = 1;
}

export async function runHookCommand(argv: readonly string[]): Promise<void> {
  let parsed;
  try {
    parsed = parseCommand(argv, { remote: { type: 'string' }, limit: { type: 'string' }, 'state-dir': { type: 'string' } });
  } catch (error) {
    fail(error instanceof Error ? error.message : 'bad arguments');
    return;
  }
  if (parsed.values.help === true) {
    process.stderr.write(HOOK_USAGE);
    return;
  }
  const limitText = parsed.values.limit;
  const limit = typeof limitText === 'string' ? Number(limitText) : DEFAULT_HOOK_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > 50) {
    fail('--limit must be an integer from 1 to 50');
    return;
  }
  let settings;
  try {
    settings = loadProcessConfig(configFlags(parsed.values));
  } catch (error) {
    fail(error instanceof Error ? error.message : 'invalid configuration');
    return;
  }
  const apiKey = settings.keys.apiKey?.trim();
  if (apiKey === undefined || apiKey === '') {
    fail('HYPHAE_API_KEY is not set: mint this agent a key (`hyphae keys create --remote URL --agent NAME` with an admin key in HYPHAE_API_KEY while the server runs) and pass it in the environment');
    return;
  }
  const stateDir = typeof parsed.values['state-dir'] === 'string' ? parsed.values['state-dir'] : undefined;
  const remote = parsed.values.remote;
  try {
    if (typeof remote === 'string') {
      const url = mcpEndpoint(remote);
      await report(remoteInboxReader(url, apiKey), stateFile(stateDir, settings.hook.stateHome, url, apiKey), limit);
      return;
    }
    const hyphae = await openHyphaeApp(settings, { command: 'hyphae hook', onBackgroundError: () => undefined });
    try {
      const principal = await resolveStdioPrincipal(hyphae.facade, apiKey);
      const target = settings.database.databaseUrl === undefined ? `embedded:${settings.database.dataDir}` : 'database';
      await report(facadeInboxReader(hyphae.facade, principal), stateFile(stateDir, settings.hook.stateHome, target, apiKey), limit);
    } finally {
      await hyphae.close();
    }
  } catch (error) {
    fail(isHyphaeError(error) ? error.message : error instanceof Error ? error.message : 'failed');
  }
}

async function report(reader: InboxReader, file: string, limit: number): Promise<void> {
  const result = await hookReport(reader, await readCursor(file), limit);
  process.stdout.write(result.text);
  await writeCursor(file, result.afterSeq);
}
