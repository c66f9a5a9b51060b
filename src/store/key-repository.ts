/** SQL for tenants and API keys. Keys are looked up by their SHA-256 hash; the clear key never reaches SQL. */
import type { Role } from '../core/cell-types.js';
import type { ApiKeyInfo } from '../core/entities.js';
import type { Queryable } from './db.js';
import { isoText } from './sql-time.js';

/** A key as stored: its wire shape, with the tenant under its column name. */
export type KeyRow = Omit<ApiKeyInfo, 'tenant'> & {
  readonly tenant_id: string;
};

const KEY_COLUMNS = `key_id::text AS key_id, tenant_id, agent, roles, projects, default_project, trust, key_prefix,
  ${isoText('created_at')} AS created_at, CASE WHEN revoked_at IS NULL THEN NULL ELSE ${isoText('revoked_at')} END AS revoked_at`;

const BOOTSTRAP_LOCK = 0x68797068; // 'hyph'

export interface NewKey {
  readonly keyId: string;
  readonly tenantId: string;
  readonly agent: string;
  readonly roles: readonly Role[];
  readonly projects: readonly string[];
  readonly defaultProject: string;
  readonly trust: number;
  /** Hex SHA-256 of the clear key. */
  readonly keyHashHex: string;
  readonly keyPrefix: string;
}

/** Creates the tenant on its first key, then the key. */
export async function insertKey(q: Queryable, key: NewKey): Promise<KeyRow> {
  await q.query(`INSERT INTO tenants (tenant_id) VALUES ($1) ON CONFLICT (tenant_id) DO NOTHING`, [key.tenantId]);
  const result = await q.query<KeyRow>(
    `INSERT INTO api_keys (key_id, tenant_id, agent, roles, projects, default_project, trust, key_hash, key_prefix, created_at)
     VALUES ($1, $2, $3, $4::text[], $5::text[], $6, $7, decode($8, 'hex'), $9, clock_timestamp())
     RETURNING ${KEY_COLUMNS}`,
    [key.keyId, key.tenantId, key.agent, key.roles, key.projects, key.defaultProject, key.trust, key.keyHashHex, key.keyPrefix],
  );
  const row = result.rows[0];
  if (row === undefined) throw new Error('INSERT … RETURNING returned no row');
  return row;
}

/** The active (not revoked) key with this hash, in any tenant: the hash is what authenticates. */
export async function findActiveKeyByHash(q: Queryable, keyHashHex: string): Promise<KeyRow | null> {
  const result = await q.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_hash = decode($1, 'hex') AND revoked_at IS NULL`, [
    keyHashHex,
  ]);
  return result.rows[0] ?? null;
}

/** Keys of one tenant, or of every tenant when tenantId is null (local operator CLI only). */
export async function listKeys(q: Queryable, tenantId: string | null): Promise<KeyRow[]> {
  const result =
    tenantId === null
      ? await q.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys ORDER BY tenant_id, created_at, key_id`)
      : await q.query<KeyRow>(`SELECT ${KEY_COLUMNS} FROM api_keys WHERE tenant_id = $1 ORDER BY created_at, key_id`, [tenantId]);
  return result.rows;
}

/** A key by id (within one tenant unless tenantId is null), locked until the transaction ends so a revocation decides on it. */
export async function findKeyForUpdate(tx: Queryable, keyId: string, tenantId: string | null): Promise<KeyRow | null> {
  const result = await tx.query<KeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE key_id = $1 AND ($2::text IS NULL OR tenant_id = $2) FOR UPDATE`,
    [keyId, tenantId],
  );
  return result.rows[0] ?? null;
}

/** Serializes key changes of one agent until the transaction ends, so a mint decides on the keys the agent holds at its commit. */
export async function lockAgentKeys(tx: Queryable, tenantId: string, agent: string): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(hashtextextended('hyphae.keys:' || $1 || ':' || $2, 0))`, [tenantId, agent]);
}

/** The unrevoked keys of one agent of one tenant. */
export async function activeAgentKeys(q: Queryable, tenantId: string, agent: string): Promise<KeyRow[]> {
  const result = await q.query<KeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE tenant_id = $1 AND agent = $2 AND revoked_at IS NULL ORDER BY created_at, key_id`,
    [tenantId, agent],
  );
  return result.rows;
}

/** Revokes once (a second revoke keeps the first time); null when the key is not in scope. */
export async function revokeKey(q: Queryable, keyId: string, tenantId: string | null): Promise<KeyRow | null> {
  const result = await q.query<KeyRow>(
    `UPDATE api_keys SET revoked_at = COALESCE(revoked_at, clock_timestamp())
     WHERE key_id = $1 AND ($2::text IS NULL OR tenant_id = $2) RETURNING ${KEY_COLUMNS}`,
    [keyId, tenantId],
  );
  return result.rows[0] ?? null;
}

/** Serializes the first-start bootstrap until the transaction ends, so two replicas starting together mint one key. */
export async function lockKeyBootstrap(tx: Queryable): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock($1)`, [BOOTSTRAP_LOCK]);
}

export async function countKeys(q: Queryable): Promise<number> {
  const result = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM api_keys`);
  return result.rows[0]?.n ?? 0;
}

/** Which of these key ids are revoked (or gone). */
export async function revokedKeyIds(q: Queryable, keyIds: readonly string[]): Promise<string[]> {
  if (keyIds.length === 0) return [];
  const result = await q.query<{ key_id: string }>(
    `SELECT k.key_id FROM unnest($1::uuid[]) AS k(key_id)
     WHERE NOT EXISTS (SELECT 1 FROM api_keys a WHERE a.key_id = k.key_id AND a.revoked_at IS NULL)`,
    [keyIds],
  );
  return result.rows.map((row) => String(row.key_id));
}
