/**
 * The `hyphae` command (README.md, "Command line"): serve, mcp, keys, worker, migrate, reembed, export, import, operator.
 * Exit codes: 0 success, 1 runtime failure, 2 bad usage, configuration or identity.
 */
import { isHyphaeError } from '../core/errors.js';
import { SERVER_VERSION } from '../mcp/protocol/server-version.js';
import { busyDataFolderMessage } from './busy-data-folder.js';

export const USAGE = `hyphae — shared memory for AI agents that speak MCP

Usage:
  hyphae serve    [--host H] [--port P] [--grpc-port P] [--data-dir D] [--database-url URL] [--nats-url URL] [--embedder E]
  hyphae mcp      [--remote URL] [--data-dir D] [--database-url URL] [--embedder E]
  hyphae keys create --tenant T --agent A [--role writer] [--projects p1,p2] [--trust 0.5] [--remote URL]
  hyphae keys list   [--remote URL]
  hyphae keys revoke ID [--remote URL]   (--remote: through a running server, admin key in HYPHAE_API_KEY)
  hyphae worker   [--nats-url URL] [--port P] [--embedder E]
  hyphae migrate  [--data-dir D] [--database-url URL] [--embedder E]
  hyphae hook     [--remote URL] [--limit N] [--state-dir D]   (for agent-host hooks: prints new inbox diffs)
  hyphae reembed  [--embedder E] [--data-dir D] [--database-url URL] [--batch-size N]
  hyphae export   [--tenant T] [--project P] [--out FILE] [--with-vectors]
  hyphae import   FILE|- [--format hyphae|server-memory|mem0] [--tenant T --agent A] [--project P]
  hyphae operator [--kubeconfig PATH] [--namespace NS] [--probe-port P] [--probe-host H] [--no-leader-elect]
  hyphae version

Environment: HYPHAE_HOST, HYPHAE_PORT, HYPHAE_DATA_DIR, HYPHAE_DATABASE_URL, HYPHAE_NATS_URL,
HYPHAE_EMBEDDER (minilm | use-lite | hash | openai | nats), HYPHAE_EMBED_URL, HYPHAE_EMBED_MODEL,
HYPHAE_API_KEY, HYPHAE_ALLOWED_HOSTS, HYPHAE_ALLOWED_ORIGINS, HYPHAE_LOG_LEVEL. Flags override them.
`;

type CommandRunner = (argv: readonly string[]) => Promise<void>;

const COMMANDS: Readonly<Record<string, () => Promise<CommandRunner>>> = {
  serve: async () => (await import('./serve-command.js')).runServeCommand,
  mcp: async () => (await import('./mcp-command.js')).runMcpCommand,
  keys: async () => (await import('./keys-command.js')).runKeysCommand,
  worker: async () => (await import('./worker-command.js')).runWorkerCommand,
  migrate: async () => (await import('./migrate-command.js')).runMigrateCommand,
  hook: async () => (await import('./hook-command.js')).runHookCommand,
  reembed: async () => (await import('./reembed-command.js')).runReembedCommand,
  export: async () => (await import('./export-command.js')).runExportCommand,
  import: async () => (await import('./import-command.js')).runImportCommand,
  operator: async () => (await import('./operator-command.js')).runOperatorCommand,
};

export async function main(argv: readonly string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    process.stdout.write(USAGE);
    return;
  }
  if (name === 'version' || name === '--version') {
    process.stdout.write(`${SERVER_VERSION}\n`);
    return;
  }
  const load = COMMANDS[name];
  if (load === undefined) {
    process.stderr.write(`hyphae: unknown command "${name}"\n\n${USAGE}`);
    process.exitCode = 2;
    return;
  }
  try {
    await (await load())(rest);
  } catch (error) {
    reportFatal(name, error);
  }
  // Long-running commands have closed what they own; a stray handle must not keep the process up.
  await exitWhenFlushed();
}

/** Exits once stdout and stderr have written everything (pipes are asynchronous in Node). */
async function exitWhenFlushed(): Promise<never> {
  const flush = (stream: NodeJS.WriteStream): Promise<void> =>
    new Promise((resolve) => {
      if (stream.destroyed || stream.writableEnded) resolve();
      else stream.write('', () => resolve());
    });
  await Promise.all([flush(process.stdout), flush(process.stderr)]);
  process.exit(process.exitCode ?? 0);
}

/** Prints a failure without a stack for expected errors; exit code 2 for usage/config/identity. */
export function reportFatal(command: string, error: unknown): void {
  if (isHyphaeError(error)) {
    process.stderr.write(`hyphae ${command}: ${busyDataFolderMessage(command, error) ?? error.message}\n`);
    process.exitCode = error.code === 'INVALID_ARGUMENT' || error.code === 'UNAUTHENTICATED' || error.code === 'CONFLICT' ? 2 : 1;
    return;
  }
  process.stderr.write(`hyphae ${command}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
}
