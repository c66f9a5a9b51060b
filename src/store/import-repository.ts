/**
 * SQL of `hyphae import` (docs/export-format.md): the ownership checks that keep an import inside
 * its tenants, and batch inserts of each record type that add what is missing and leave every row
 * already present as it is (ON CONFLICT DO NOTHING), so importing a file twice changes nothing.
 * Each insert takes its batch as one JSON array and returns the ids it added.
 */
import type { ExportBeacon, ExportCell, ExportCorroboration, ExportDiff, ExportInbox, ExportKey, ExportScene, ExportSession, ExportSource, ExportTenant } from '../core/export-format.js';
import { identifierTokens } from '../core/identifier-tokens.js';
import type { Queryable } from './db.js';
import { cellTermsOf, tenantTermPrefix } from './lexical-terms.js';

/** The record kinds whose ids are unique across tenants (a primary key of their own). */
export type GlobalIdKind = 'cell' | 'corroboration' | 'beacon' | 'key' | 'diff' | 'evidence';

const GLOBAL_IDS: Readonly<Record<GlobalIdKind, { readonly table: string; readonly id: string }>> = {
  cell: { table: 'cells', id: 'node_id' },
  corroboration: { table: 'corroborations', id: 'corroboration_id' },
  beacon: { table: 'beacons', id: 'beacon_id' },
  key: { table: 'api_keys', id: 'key_id' },
  diff: { table: 'diffs', id: 'diff_id' },
  evidence: { table: 'cell_evidence', id: 'evidence_id' },
};

/** The tenant holding each of these ids, for those that exist. */
export async function idOwners(q: Queryable, kind: GlobalIdKind, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const { table, id } = GLOBAL_IDS[kind];
  const result = await q.query<{ id: string; tenant_id: string }>(
    `SELECT ${id}::text AS id, tenant_id FROM ${table} WHERE ${id} = ANY($1::uuid[])`,
    [ids],
  );
  return new Map(result.rows.map((row) => [row.id, row.tenant_id]));
}

/** The key holding each of these hashes (hex SHA-256), for those that exist. */
export async function keyHashOwners(q: Queryable, hashes: readonly string[]): Promise<Map<string, string>> {
  if (hashes.length === 0) return new Map();
  const result = await q.query<{ key_hash: string; key_id: string }>(
    `SELECT encode(key_hash, 'hex') AS key_hash, key_id::text AS key_id FROM api_keys WHERE key_hash = ANY(SELECT decode(h, 'hex') FROM unnest($1::text[]) AS h)`,
    [hashes],
  );
  return new Map(result.rows.map((row) => [row.key_hash, row.key_id]));
}

/**
 * Takes cells and beacons for the rest of the transaction (no other session reads or writes them
 * until it ends) and tells whether both are empty: a bulk load may then drop their vector indexes
 * and build them once at the end.
 */
export async function lockEmptyVectorTables(tx: Queryable): Promise<boolean> {
  await tx.query('LOCK TABLE cells, beacons IN ACCESS EXCLUSIVE MODE');
  const result = await tx.query<{ empty: boolean }>('SELECT NOT EXISTS (SELECT 1 FROM cells) AND NOT EXISTS (SELECT 1 FROM beacons) AS empty');
  return result.rows[0]?.empty === true;
}

/** How many cells a tenant holds (every layer and version). */
export async function countTenantCells(q: Queryable, tenantId: string): Promise<number> {
  const result = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM cells WHERE tenant_id = $1', [tenantId]);
  return result.rows[0]?.n ?? 0;
}

async function insertReturning(q: Queryable, sql: string, rows: readonly object[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const result = await q.query<{ id: string }>(sql, [JSON.stringify(rows)]);
  return result.rows.map((row) => row.id);
}

export function insertTenants(q: Queryable, rows: readonly ExportTenant[]): Promise<string[]> {
  return insertReturning(
    q,
    `INSERT INTO tenants (tenant_id, created_at)
     SELECT r.tenant, r.created_at FROM jsonb_to_recordset($1::jsonb) AS r(tenant text, created_at timestamptz)
     ON CONFLICT DO NOTHING RETURNING tenant_id AS id`,
    rows,
  );
}

export function insertKeys(q: Queryable, rows: readonly ExportKey[]): Promise<string[]> {
  return insertReturning(
    q,
    `INSERT INTO api_keys (key_id, tenant_id, agent, roles, projects, default_project, trust, key_hash, key_prefix, created_at, revoked_at)
     SELECT r.key_id, r.tenant, r.agent, r.roles, r.projects, r.default_project, r.trust, decode(r.key_hash, 'hex'), r.key_prefix,
            r.created_at, r.revoked_at
       FROM jsonb_to_recordset($1::jsonb) AS r(key_id uuid, tenant text, agent text, roles text[], projects text[], default_project text,
            trust real, key_hash text, key_prefix text, created_at timestamptz, revoked_at timestamptz)
     ON CONFLICT DO NOTHING RETURNING key_id::text AS id`,
    rows,
  );
}

export function insertScenes(q: Queryable, rows: readonly ExportScene[]): Promise<string[]> {
  return insertReturning(
    q,
    `INSERT INTO scenes (tenant_id, scene_id, project, title, created_by, created_at, consolidated_at, consolidated_node_id)
     SELECT r.tenant, r.scene_id, r.project, r.title, r.created_by, r.created_at, r.consolidated_at, r.consolidated_node_id
       FROM jsonb_to_recordset($1::jsonb) AS r(tenant text, scene_id uuid, project text, title text, created_by text,
            created_at timestamptz, consolidated_at timestamptz, consolidated_node_id uuid)
     ON CONFLICT DO NOTHING RETURNING scene_id::text AS id`,
    rows,
  );
}

export function insertSessions(q: Queryable, rows: readonly ExportSession[]): Promise<string[]> {
  return insertReturning(
    q,
    `INSERT INTO sessions (tenant_id, session_id, agent, project, scene_id, opened_at, closed_at)
     SELECT r.tenant, r.session_id, r.agent, r.project, r.scene_id, r.opened_at, r.closed_at
       FROM jsonb_to_recordset($1::jsonb) AS r(tenant text, session_id uuid, agent text, project text, scene_id uuid,
            opened_at timestamptz, closed_at timestamptz)
     ON CONFLICT DO NOTHING RETURNING session_id::text AS id`,
    rows,
  );
}

/** A source's key as an import compares it: JSON of [tenant, project, source_id]. */
export function sourceKeyText(tenant: string, project: string, sourceId: string): string {
  return JSON.stringify([tenant, project, sourceId]);
}

/**
 * Adds the sources not yet present (a source the target holds under the same key is kept as it
 * is, chunks and all); its length in characters is counted from its text. Returns the keys added
 * (sourceKeyText).
 */
export async function insertSources(q: Queryable, rows: readonly ExportSource[]): Promise<string[]> {
  if (rows.length === 0) return [];
  const result = await q.query<{ tenant_id: string; project: string; source_id: string }>(
    `INSERT INTO sources (tenant_id, project, source_id, kind, format, title, metadata, observation_date, body, total_chars, total_bytes,
       chunk_count, created_by, created_at, updated_at, expires_at)
     SELECT r.tenant, r.project, r.source_id, r.kind, r.format, r.title, COALESCE(r.metadata, '{}'::jsonb), r.observation_date, r.text,
            char_length(r.text), r.total_bytes, r.chunk_count, r.created_by, r.created_at, r.updated_at, r.expires_at
       FROM jsonb_to_recordset($1::jsonb) AS r(tenant text, project text, source_id text, kind text, format text, title text, metadata jsonb,
            observation_date date, text text, total_bytes integer, chunk_count integer, created_by text, created_at timestamptz,
            updated_at timestamptz, expires_at timestamptz)
     ON CONFLICT DO NOTHING RETURNING tenant_id, project, source_id`,
    [JSON.stringify(rows)],
  );
  return result.rows.map((row) => sourceKeyText(row.tenant_id, row.project, row.source_id));
}

/** A cell to insert: its line with the vector (pgvector text) it is stored with. */
export type ImportedCell = Omit<ExportCell, 'embedding'> & { readonly embedding: string };

/**
 * Adds the cells not yet present, then the reinforcement keys of every cell of the batch (a key
 * already held is kept). Returns the ids added; an id neither added nor already the same tenant's
 * was refused by another unique rule (the caller reports it).
 */
export async function insertCells(q: Queryable, rows: readonly ImportedCell[]): Promise<string[]> {
  const added = await insertReturning(
    q,
    `WITH added AS (
     INSERT INTO cells (node_id, tenant_id, project, layer, cell_type, content, salience, scene_id, session_id, source_agent, source_ref,
       metadata, idempotency_key, origin_node_id, promoted_node_id, hits, created_at, updated_at, reinforced_at, valid_from, valid_until,
       supersedes, superseded_by, corroborations, corroborators, trust, embedding, source_id, chunk_index, char_start, char_end, expires_at)
     SELECT r.node_id, r.tenant, r.project, r.layer, r.cell_type, r.content, r.salience, r.scene_id, r.session_id, r.source_agent,
            r.source_ref, COALESCE(r.metadata, '{}'::jsonb), r.idempotency_key, r.origin_node_id, r.promoted_node_id, r.hits, r.created_at,
            r.updated_at, r.reinforced_at, r.valid_from, r.valid_until, r.supersedes, r.superseded_by, r.corroborations, r.corroborators,
            r.trust, r.embedding::vector, r.source_id, r.chunk_index, r.char_start, r.char_end, r.expires_at
       FROM jsonb_to_recordset($1::jsonb) AS r(node_id uuid, tenant text, project text, layer text, cell_type text, content text,
            salience real, scene_id uuid, session_id uuid, source_agent text, source_ref jsonb, metadata jsonb, idempotency_key text,
            origin_node_id uuid, promoted_node_id uuid, hits integer, created_at timestamptz, updated_at timestamptz,
            reinforced_at timestamptz, valid_from timestamptz, valid_until timestamptz, supersedes uuid, superseded_by uuid,
            corroborations integer, corroborators text[], trust real, embedding text, source_id text, chunk_index integer,
            char_start integer, char_end integer, expires_at timestamptz)
     ON CONFLICT DO NOTHING RETURNING node_id, content),
     terms AS (
       INSERT INTO cell_tenant_terms (node_id, terms)
       SELECT added.node_id, ${cellTermsOf('r.term_prefix', 'added.content', 'r.identifiers')}
       FROM added JOIN jsonb_to_recordset($1::jsonb) AS r(node_id uuid, identifiers text[], term_prefix text) USING (node_id))
     SELECT node_id::text AS id FROM added`,
    rows.map((cell) => ({ ...cell, identifiers: identifierTokens(cell.content), term_prefix: tenantTermPrefix(cell.tenant) })),
  );
  const keys = rows.flatMap((cell) => cell.reinforcement_keys.map((key) => ({ ...key, tenant: cell.tenant, node_id: cell.node_id })));
  if (keys.length > 0) {
    await q.query(
      `INSERT INTO reinforcement_keys (tenant_id, agent, idempotency_key, node_id, created_at)
       SELECT r.tenant, r.agent, r.idempotency_key, r.node_id, r.created_at
         FROM jsonb_to_recordset($1::jsonb) AS r(tenant text, agent text, idempotency_key text, node_id uuid, created_at timestamptz)
        WHERE EXISTS (SELECT 1 FROM cells c WHERE c.node_id = r.node_id AND c.tenant_id = r.tenant)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(keys)],
    );
  }
  return added;
}

/** Adds the corroboration records not yet present whose cell is the same tenant's; returns the ids added. */
export function insertCorroborations(q: Queryable, rows: readonly ExportCorroboration[]): Promise<string[]> {
  return insertReturning(
    q,
    `INSERT INTO corroborations (corroboration_id, tenant_id, node_id, agent, content, salience, scene_id, session_id, source_ref, metadata, similarity, created_at)
     SELECT r.corroboration_id, r.tenant, r.node_id, r.agent, r.content, r.salience, r.scene_id, r.session_id, r.source_ref, r.metadata, r.similarity, r.created_at
       FROM jsonb_to_recordset($1::jsonb) AS r(corroboration_id uuid, tenant text, node_id uuid, agent text, content text, salience real, scene_id uuid,
            session_id uuid, source_ref jsonb, metadata jsonb, similarity real, created_at timestamptz)
      WHERE EXISTS (SELECT 1 FROM cells c WHERE c.node_id = r.node_id AND c.tenant_id = r.tenant)
     ON CONFLICT DO NOTHING RETURNING corroboration_id::text AS id`,
    rows,
  );
}

/** A beacon to insert: its line with the vector (pgvector text) it is stored with. */
export type ImportedBeacon = Omit<ExportBeacon, 'embedding'> & { readonly embedding: string };

export function insertBeacons(q: Queryable, rows: readonly ImportedBeacon[]): Promise<string[]> {
  return insertReturning(
    q,
    `INSERT INTO beacons (beacon_id, tenant_id, owner_agent, owner_projects, project, text, threshold, cell_types, scene_id, include_own,
       expires_at, created_at, embedding)
     SELECT r.beacon_id, r.tenant, r.owner_agent, r.owner_projects, r.project, r.text, r.threshold, r.cell_types, r.scene_id, r.include_own,
            r.expires_at, r.created_at, r.embedding::vector
       FROM jsonb_to_recordset($1::jsonb) AS r(beacon_id uuid, tenant text, owner_agent text, owner_projects text[], project text, text text,
            threshold real, cell_types text[], scene_id uuid, include_own boolean, expires_at timestamptz, created_at timestamptz, embedding text)
     ON CONFLICT DO NOTHING RETURNING beacon_id::text AS id`,
    rows,
  );
}

/**
 * Restores inbox positions (and channel marks) of agents that have no inbox in the target yet;
 * an inbox already there is kept. Returns the inboxes restored.
 */
export async function insertInboxes(q: Queryable, rows: readonly ExportInbox[]): Promise<{ tenantId: string; agent: string }[]> {
  if (rows.length === 0) return [];
  const result = await q.query<{ tenant_id: string; agent: string }>(
    `INSERT INTO inboxes (tenant_id, agent, last_seq, cursor_seq)
     SELECT r.tenant, r.agent, r.last_seq, r.cursor_seq FROM jsonb_to_recordset($1::jsonb) AS r(tenant text, agent text, last_seq bigint, cursor_seq bigint)
     ON CONFLICT DO NOTHING RETURNING tenant_id, agent`,
    [JSON.stringify(rows)],
  );
  const restored = result.rows.map((row) => ({ tenantId: row.tenant_id, agent: row.agent }));
  const marks = rows.filter((row) => row.channel_settled_seq !== null && restored.some((r) => r.tenantId === row.tenant && r.agent === row.agent));
  if (marks.length > 0) {
    await q.query(
      `INSERT INTO channel_marks (tenant_id, agent, settled_seq)
       SELECT r.tenant, r.agent, r.channel_settled_seq FROM jsonb_to_recordset($1::jsonb) AS r(tenant text, agent text, channel_settled_seq bigint)
       ON CONFLICT DO NOTHING`,
      [JSON.stringify(marks)],
    );
  }
  return restored;
}

/** Adds waiting diffs; they count as published already, so the relay does not gossip a restore. */
export function insertDiffs(q: Queryable, rows: readonly ExportDiff[]): Promise<string[]> {
  return insertReturning(
    q,
    `INSERT INTO diffs (diff_id, tenant_id, recipient_agent, seq, op, node_id, beacon_id, similarity, cell_type, salience, source_agent,
       project, scene_id, preview, supersedes, created_at, published_at, source_id, expires_at)
     SELECT r.diff_id, r.tenant, r.recipient_agent, r.seq, r.op, r.node_id, r.beacon_id, r.similarity, r.cell_type, r.salience,
            r.source_agent, r.project, r.scene_id, r.preview, r.supersedes, r.created_at, r.created_at, r.source_id, r.expires_at
       FROM jsonb_to_recordset($1::jsonb) AS r(diff_id uuid, tenant text, recipient_agent text, seq bigint, op text, node_id uuid,
            beacon_id uuid, similarity real, cell_type text, salience real, source_agent text, project text, scene_id uuid, preview text,
            supersedes uuid, created_at timestamptz, source_id text, expires_at timestamptz)
     ON CONFLICT DO NOTHING RETURNING diff_id::text AS id`,
    rows,
  );
}

/** Each agent's trust as its keys hold it now: the highest of its unrevoked keys; absent when it has none. */
export async function agentTrusts(q: Queryable, tenantId: string, agents: readonly string[]): Promise<Map<string, number>> {
  if (agents.length === 0) return new Map();
  const result = await q.query<{ agent: string; trust: number }>(
    // real, as a key's own trust is read (agent-trust-repository.ts).
    `SELECT agent, max(trust) AS trust FROM api_keys WHERE tenant_id = $1 AND agent = ANY($2::text[]) AND revoked_at IS NULL GROUP BY agent`,
    [tenantId, agents],
  );
  return new Map(result.rows.map((row) => [row.agent, Number(row.trust)]));
}
