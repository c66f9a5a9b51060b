/**
 * Process configuration (README.md, configuration): environment variables, overridden by command-line flags,
 * validated once at start-up. A bad value stops the process with a message naming the variable.
 * Each variable is declared once, in its group under ./config/; the configuration's type is inferred from them.
 */
import { CONFIG_SCHEMA, type ParsedSettings } from './config/config-schema.js';
import { parseGroup, type ConfigIssue } from './config/setting.js';
import { InvalidArgumentError } from './errors.js';
import { resolveOAuthConfig, type OAuthConfig } from './oauth-config.js';

export { EMBEDDER_KINDS, type EmbedderKind } from './config/backend-settings.js';
export { MAX_CHANNEL_EVENTS_PER_MINUTE } from './config/memory-settings.js';
export { DEFAULT_GRPC_PORT, RATE_LIMIT_WINDOW_MS } from './config/server-settings.js';

/** The parsed configuration: the schema's groups, with what is derived from several settings filled in. */
export type HyphaeConfig = Omit<ParsedSettings, 'database' | 'log' | 'oauth'> & {
  /** `embedded`: the database is the embedded PGlite folder (no HYPHAE_DATABASE_URL). */
  readonly database: ParsedSettings['database'] & { readonly embedded: boolean };
  readonly log: ParsedSettings['log'] & { readonly requests: 'info' | 'debug' };
  /** OAuth access tokens accepted beside API keys; undefined: API keys only. */
  readonly oauth: OAuthConfig | undefined;
};

/** Command-line flags that override their environment variable. */
export interface ConfigFlags {
  readonly host?: string;
  readonly port?: string;
  readonly grpcPort?: string;
  readonly workerPort?: string;
  readonly dataDir?: string;
  readonly databaseUrl?: string;
  readonly natsUrl?: string;
  readonly embedder?: string;
}

const FLAG_SETTINGS: Readonly<Record<keyof ConfigFlags, { readonly env: string }>> = {
  host: CONFIG_SCHEMA.http.host,
  port: CONFIG_SCHEMA.http.port,
  grpcPort: CONFIG_SCHEMA.grpc.port,
  workerPort: CONFIG_SCHEMA.worker.port,
  dataDir: CONFIG_SCHEMA.database.dataDir,
  databaseUrl: CONFIG_SCHEMA.database.databaseUrl,
  natsUrl: CONFIG_SCHEMA.gossip.natsUrl,
  embedder: CONFIG_SCHEMA.embed.kind,
};

export function loadConfig(env: Readonly<Record<string, string | undefined>>, flags: ConfigFlags = {}): HyphaeConfig {
  const merged: Record<string, string | undefined> = { ...env };
  for (const [flag, target] of Object.entries(FLAG_SETTINGS) as [keyof ConfigFlags, { env: string }][]) {
    const value = flags[flag];
    if (value !== undefined) merged[target.env] = value;
  }
  const issues: ConfigIssue[] = [];
  const parsed = Object.fromEntries(Object.entries(CONFIG_SCHEMA).map(([name, group]) => [name, parseGroup(group, merged, issues)])) as unknown as ParsedSettings;
  if (issues.length > 0) throw new InvalidArgumentError(`invalid configuration: ${issues.map((i) => i.message).join('; ')}`, issues);
  if (parsed.embed.kind === 'openai' && parsed.embed.url === undefined) throw requires('HYPHAE_EMBED_URL', 'HYPHAE_EMBEDDER=openai');
  if (parsed.embed.kind === 'nats' && parsed.gossip.natsUrl === undefined) throw requires('HYPHAE_NATS_URL', 'HYPHAE_EMBEDDER=nats');
  const embedded = parsed.database.databaseUrl === undefined;
  return {
    ...parsed,
    database: { ...parsed.database, embedded },
    // Unset: JSON lines for a collector with PostgreSQL, off the terminal (debug) embedded.
    log: { ...parsed.log, requests: parsed.log.requests ?? (embedded ? 'debug' : 'info') },
    oauth: resolveOAuthConfig(parsed.oauth, parsed.http.publicUrl),
  };
}

/** The process's own configuration: its environment and the command's flags. */
export function loadProcessConfig(flags: ConfigFlags = {}): HyphaeConfig {
  return loadConfig(process.env, flags);
}

/** Every setting at its default: the defaults the surfaces and the facade start from when built without a process. */
export const DEFAULT_CONFIG: HyphaeConfig = loadConfig({});

function requires(variable: string, condition: string): InvalidArgumentError {
  return new InvalidArgumentError(`invalid configuration: ${variable} is required when ${condition}`, [{ path: variable, message: `required when ${condition}` }]);
}
