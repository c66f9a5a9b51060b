/**
 * The HydraDB connection a stdio launch reads (docs/coming-from-hydradb.md): each HYDRADB_* setting,
 * else its legacy HYDRA_DB_* alias with a warning naming the replacement (the canonical name wins
 * when both are set). HYDRA_DB_BASE_URL / HYDRADB_BASE_URL have no meaning here: Hyphae is the server.
 */
import type { GroupValues } from './setting.js';
import type { toolsetSettings } from './toolset-settings.js';

type ToolsetValues = GroupValues<typeof toolsetSettings>;

export interface HydraEnvironment {
  readonly apiKey?: string;
  readonly database?: string;
  readonly collection?: string;
  readonly logLevel?: ToolsetValues['logLevel'];
  /** One line per legacy name in use: its replacement. */
  readonly warnings: readonly string[];
}

const ALIASES = [
  ['apiKey', 'legacyApiKey', 'HYDRADB_API_KEY', 'HYDRA_DB_API_KEY'],
  ['database', 'legacyDatabase', 'HYDRADB_DATABASE', 'HYDRA_DB_TENANT_ID'],
  ['collection', 'legacyCollection', 'HYDRADB_COLLECTION', 'HYDRA_DB_SUB_TENANT_ID'],
  ['logLevel', 'legacyLogLevel', 'HYDRADB_LOG_LEVEL', 'HYDRA_DB_LOG_LEVEL'],
] as const;

export function hydraEnvironment(values: ToolsetValues): HydraEnvironment {
  const resolved: Record<string, unknown> = {};
  const warnings: string[] = [];
  for (const [canonical, legacy, canonicalName, legacyName] of ALIASES) {
    const value = values[canonical] ?? values[legacy];
    if (values[legacy] !== undefined) {
      warnings.push(`${legacyName} is deprecated: set ${canonicalName} instead${values[canonical] === undefined ? '' : ` (${canonicalName} is set and wins)`}`);
    }
    if (value !== undefined) resolved[canonical] = value;
  }
  return { ...(resolved as Omit<HydraEnvironment, 'warnings'>), warnings };
}
