/**
 * `hyphae keys create|list|revoke`: locally, an operator tool with direct database access (it goes
 * around the facade's per-tenant admin check on purpose: whoever can open the database owns it);
 * with `--remote URL`, the same through a running server's REST routes and an admin key
 * (HYPHAE_API_KEY or --api-key), for while `hyphae serve` holds the data folder.
 * `create` prints the clear key once, alone on its line, on stdout; everything else goes to stderr.
 */
import { openMigratedDatabase } from '../app/index.js';
import { createKeyAdministration } from '../auth/key-administration.js';
import type { ApiKeyInfo } from '../core/entities.js';
import { InvalidArgumentError } from '../core/errors.js';
import { loadProcessConfig } from '../core/config.js';
import { configFlags, parseCommand } from './args.js';
import { remoteKeyAdministration, type KeyAdministrationCalls } from './remote-key-admin.js';

const KEYS_USAGE = `Usage:
  hyphae keys create --tenant T --agent A [--role writer] [--projects p1,p2] [--default-project P] [--trust 0.5]
  hyphae keys list [--tenant T]
  hyphae keys revoke ID [--tenant T]
While the server runs (it holds the data folder), add --remote URL and an admin key:
  HYPHAE_API_KEY=hy_… hyphae keys create --remote http://127.0.0.1:8787 --agent A [--tenant T] [--role writer] …
  hyphae keys list|revoke ID --remote URL [--api-key hy_…]
`;

export async function runKeysCommand(argv: readonly string[]): Promise<void> {
  const [sub, ...rest] = argv;
  const parsed = parseCommand(rest, {
    tenant: { type: 'string' },
    agent: { type: 'string' },
    role: { type: 'string' },
    roles: { type: 'string' },
    projects: { type: 'string' },
    'default-project': { type: 'string' },
    trust: { type: 'string' },
    json: { type: 'boolean' },
    remote: { type: 'string' },
    'api-key': { type: 'string' },
  });
  if (sub === undefined || sub === '--help' || sub === '-h' || parsed.values.help === true) {
    process.stdout.write(KEYS_USAGE);
    return;
  }
  if (!['create', 'list', 'revoke'].includes(sub)) {
    throw new InvalidArgumentError(`unknown keys subcommand "${sub}"\n${KEYS_USAGE}`);
  }
  const config = loadProcessConfig(configFlags(parsed.values));
  const remote = parsed.values.remote;
  if (typeof remote === 'string') {
    const flagKey = parsed.values['api-key'];
    const apiKey = (typeof flagKey === 'string' ? flagKey : config.keys.apiKey)?.trim();
    if (apiKey === undefined || apiKey === '') {
      throw new InvalidArgumentError(
        `keys ${sub} --remote needs an admin key of that server: set HYPHAE_API_KEY (or pass --api-key); the server's first start printed one`,
      );
    }
    await runKeysSubcommand(sub, parsed, remoteKeyAdministration(remote, apiKey));
    return;
  }
  const database = await openMigratedDatabase(config, `hyphae keys ${sub}`);
  try {
    await runKeysSubcommand(sub, parsed, createKeyAdministration(database.db));
  } finally {
    await database.close();
  }
}

async function runKeysSubcommand(sub: string, parsed: ReturnType<typeof parseCommand>, admin: KeyAdministrationCalls): Promise<void> {
  const v = parsed.values;
  const str = (key: string): string | undefined => (typeof v[key] === 'string' ? (v[key] as string) : undefined);
  const list = (value: string | undefined): string[] | undefined =>
    value === undefined ? undefined : value.split(',').map((item) => item.trim()).filter((item) => item.length > 0);

  if (sub === 'create') {
    const trust = str('trust');
    const input: Record<string, unknown> = {
      tenant: str('tenant'),
      agent: str('agent'),
    };
    const roles = list(str('roles') ?? str('role'));
    if (roles !== undefined) input.roles = roles;
    const projects = list(str('projects'));
    if (projects !== undefined) input.projects = projects;
    if (str('default-project') !== undefined) input.default_project = str('default-project');
    if (trust !== undefined) {
      const parsedTrust = Number(trust);
      if (!Number.isFinite(parsedTrust)) throw new InvalidArgumentError(`--trust must be a number in [0,1], got "${trust}"`);
      input.trust = parsedTrust;
    }
    const created = await admin.createKey(input);
    process.stderr.write(
      `created key ${created.key_id} for agent "${created.agent}" in tenant "${created.tenant}" ` +
        `(roles ${created.roles.join(',')}; projects ${created.projects.join(',')}). It is shown once:\n`,
    );
    process.stdout.write(`${created.key}\n`);
    return;
  }
  if (sub === 'list') {
    const keys = await admin.listKeys(str('tenant'));
    if (v.json === true) {
      process.stdout.write(`${JSON.stringify(keys, null, 2)}\n`);
      return;
    }
    process.stdout.write(formatKeyTable(keys));
    return;
  }
  const id = parsed.positionals[0];
  if (id === undefined) throw new InvalidArgumentError(`keys revoke needs a key id\n${KEYS_USAGE}`);
  const revoked = await admin.revokeKey(id, str('tenant'));
  process.stderr.write(`revoked key ${revoked.key_id} (agent "${revoked.agent}", tenant "${revoked.tenant}")\n`);
}

function formatKeyTable(keys: readonly ApiKeyInfo[]): string {
  const header = ['KEY ID', 'PREFIX', 'TENANT', 'AGENT', 'ROLES', 'PROJECTS', 'TRUST', 'CREATED', 'REVOKED'];
  const rows = keys.map((k) => [
    k.key_id,
    k.key_prefix,
    k.tenant,
    k.agent,
    k.roles.join(','),
    k.projects.join(','),
    String(k.trust),
    k.created_at,
    k.revoked_at ?? '-',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => `${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd()}\n`;
  return line(header) + rows.map(line).join('');
}
