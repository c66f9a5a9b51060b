/**
 * Which MCP toolsets a process serves (docs/mcp.md, "Toolsets") and the HydraDB toolset's connection
 * settings (docs/coming-from-hydradb.md): the HYDRADB_* names its clients already set, and the legacy
 * HYDRA_DB_* names as deprecated aliases (canonical wins; hydradb-connection.ts resolves them).
 */
import { z } from 'zod';
import { oneZero } from './setting-parsers.js';
import { setting } from './setting.js';

export const MCP_TOOLSETS = ['hyphae', 'hydradb'] as const;
export type McpToolset = (typeof MCP_TOOLSETS)[number];

/** A comma list of toolsets, at least one, each named once. */
export const toolsetList = z
  .string()
  .transform((value) => value.split(',').map((item) => item.trim().toLowerCase()).filter((item) => item.length > 0))
  .pipe(z.array(z.enum(MCP_TOOLSETS)).min(1, 'name at least one toolset: hyphae, hydradb'))
  .transform((names): readonly McpToolset[] => MCP_TOOLSETS.filter((name) => names.includes(name)));

export const HYDRADB_LOG_LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;
const hydraLogLevel = z
  .string()
  .transform((value) => value.trim().toUpperCase())
  .pipe(z.enum(HYDRADB_LOG_LEVELS));

export const toolsetSettings = {
  toolsets: setting({
    env: 'HYPHAE_MCP_TOOLSETS',
    default: 'hyphae',
    parse: toolsetList,
    doc: 'MCP toolsets served (comma list): `hyphae` the eleven tools, `hydradb` the HydraDB tools (docs/coming-from-hydradb.md); `hyphae mcp --toolset` and `/mcp?toolset=` choose per launch or request',
  }),
  legacyTools: setting({ env: 'HYDRADB_MCP_LEGACY_TOOLS', default: '0', parse: oneZero, doc: '`1`: the HydraDB toolset also registers its deprecated `hydra_db_*` names' }),
  graphTools: setting({ env: 'HYDRADB_MCP_GRAPH_TOOLS', parse: oneZero, doc: 'HydraDB\'s Cypher graph tools are not offered: `1` only logs that once' }),
  apiKey: setting({ env: 'HYDRADB_API_KEY', parse: z.string().min(1), doc: 'stdio: a Hyphae key, read when `HYPHAE_API_KEY` is unset (HydraDB client configurations)' }),
  database: setting({ env: 'HYDRADB_DATABASE', parse: z.string().min(1), doc: 'HydraDB toolset: the database, which must be the tenant of the key (another is refused)' }),
  collection: setting({ env: 'HYDRADB_COLLECTION', parse: z.string().min(1), doc: 'HydraDB toolset: the default collection, a project within the key\'s scope' }),
  logLevel: setting({ env: 'HYDRADB_LOG_LEVEL', parse: hydraLogLevel, doc: '`hyphae mcp` diagnostics on stderr: `DEBUG`/`INFO` print the start line, `WARN`/`ERROR` only problems' }),
  legacyApiKey: setting({ env: 'HYDRA_DB_API_KEY', parse: z.string().min(1), doc: 'deprecated alias of `HYDRADB_API_KEY`' }),
  legacyDatabase: setting({ env: 'HYDRA_DB_TENANT_ID', parse: z.string().min(1), doc: 'deprecated alias of `HYDRADB_DATABASE`' }),
  legacyCollection: setting({ env: 'HYDRA_DB_SUB_TENANT_ID', parse: z.string().min(1), doc: 'deprecated alias of `HYDRADB_COLLECTION`' }),
  legacyLogLevel: setting({ env: 'HYDRA_DB_LOG_LEVEL', parse: hydraLogLevel, doc: 'deprecated alias of `HYDRADB_LOG_LEVEL`' }),
  linkSecret: setting({
    env: 'HYPHAE_HYDRADB_LINK_SECRET',
    parse: z.string().min(32, 'at least 32 characters'),
    doc: 'signs `hydradb_inspect` download links (HMAC-SHA256); every replica needs the same value (unset: a random one per process, links then work on the replica that made them)',
  }),
} as const;
