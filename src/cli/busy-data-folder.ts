/**
 * A data folder another process holds, said with what this command can do instead — only commands
 * and routes that exist: a running `hyphae serve` is reached over its HTTP port (`--remote`, REST);
 * any other holder is to be stopped first.
 */
import { DEFAULT_CONFIG } from '../core/config.js';
import { DataDirLockedError } from '../store/errors.js';

/** Where a server started with the defaults answers; the holder's own line names its address. */
const DEFAULT_URL = `http://${DEFAULT_CONFIG.http.host}:${DEFAULT_CONFIG.http.port}`;
const URL_NOTE = `(the URL it printed when it started; ${DEFAULT_URL} with the default --port)`;

function remedyWhileServing(command: string): string {
  switch (command) {
    case 'serve':
      return `a server already runs on this folder: use it ${URL_NOTE}, or start another one with its own --data-dir, --port and --grpc-port`;
    case 'keys':
      return (
        `administer keys through it: HYPHAE_API_KEY=<admin key> hyphae keys create --remote ${DEFAULT_URL} --tenant default --agent <name> ` +
        `(or POST /v1/admin/keys with "Authorization: Bearer <admin key>") ${URL_NOTE}`
      );
    case 'mcp':
      return `connect through it: HYPHAE_API_KEY=<key> hyphae mcp --remote ${DEFAULT_URL} ${URL_NOTE}`;
    case 'export':
      return `export through it: GET /v1/admin/export with an admin key ${URL_NOTE}, or stop it first`;
    case 'import':
      return `import through it: POST /v1/admin/import with an admin key ${URL_NOTE}, or stop it first`;
    default:
      return 'stop it first';
  }
}

/** The one line `hyphae <command>` prints for a busy data folder; undefined for any other error. */
export function busyDataFolderMessage(command: string, error: unknown): string | undefined {
  if (!(error instanceof DataDirLockedError)) return undefined;
  const { holder, dataDir } = error;
  const where = holder.hostname === '' ? '' : ` on ${holder.hostname}`;
  const serving = /\bserve\b/.test(holder.command);
  const remedy = serving ? remedyWhileServing(command) : 'stop it first (only a running `hyphae serve` is shared, over HTTP)';
  return `data folder ${dataDir} is in use by pid ${holder.pid}${where} (${holder.command}, started ${holder.startedAt}); ${remedy}`;
}
