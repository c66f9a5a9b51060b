/**
 * Lexical terms are keyed by tenant (migration 0014): every count, bound and statistic lexical and
 * hybrid recall read is the tenant's own, so another tenant's cells change none of a tenant's
 * results or scores. Before, a tenant storing as many cells naming an identifier as the bound allows
 * could tell from its scores whether another tenant's cell named it too. Migration 0014 keys the
 * terms of the cells stored before it as the store keys new ones, and the view it leaves for servers
 * of the previous version keys what they write during a rolling upgrade. On PGlite, through the wire
 * protocol and on native PostgreSQL.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { identifierTokens } from '../../src/core/identifier-tokens.js';
import { insertCell } from '../../src/store/cell-repository.js';
import { searchCells, type CellSearch, type KnnFilter, type KnnHit } from '../../src/store/cell-search.js';
import type { Db, Queryable } from '../../src/store/db.js';
import { cellTermsOf, tenantTermPrefix } from '../../src/store/lexical-terms.js';
import { applyMigrations, migrate } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { toVectorParam } from '../../src/store/vector-param.js';
import { describeEachDriver } from '../support/each-driver.js';
import { newCell } from './new-cell.js';
import { migrationsWithout, type MigrationsCopy } from './migrations-dir.js';
import { createDatabase, skipWithoutPostgres, startRealPostgres, type RealPostgres } from '../support/real-postgres.js';

const DIMENSION = 8;
const IDENTITY = { modelId: 'tiny-8', dimension: DIMENSION };
/** Hybrid recall's bound: no identifier more of the tenant's cells than this hold is looked up. */
const HYBRID_TERM_CELLS = 100;
const IDENTIFIER = 'ERR_QUOTA_7731';

/** The i-th cell's vector: deterministic, and distinct from every other cell's, so no two cells tie on distance. */
function vectorFor(i: number): number[] {
  return Array.from({ length: DIMENSION }, (_, d) => Math.sin(i * 12.9898 + d * 78.233) * 0.5 + 0.5);
}

async function store(db: Db, tenantId: string, content: string, i: number): Promise<string> {
  const cell = newCell(tenantId, toVectorParam(vectorFor(i)), { content });
  await insertCell(db, cell);
  return cell.nodeId;
}

const QUERY = { text: `why did the deploy fail with ${IDENTIFIER}`, identifiers: identifierTokens(`why did the deploy fail with ${IDENTIFIER}`) };
const VECTOR = toVectorParam(vectorFor(3));
const SEARCHES: Record<string, CellSearch> = {
  lexical: { mode: 'lexical', vector: VECTOR, query: QUERY, weights: { identifier: 0, text: 0 }, recencyBias: 0 },
  'hybrid, words and identifiers': { mode: 'hybrid', vector: VECTOR, query: QUERY, weights: { identifier: 0.2, text: 0.5 }, recencyBias: 0 },
  'hybrid, identifiers alone': { mode: 'hybrid', vector: VECTOR, query: QUERY, weights: { identifier: 0.2, text: 0 }, recencyBias: 0 },
};
const filterFor = (tenantId: string): KnnFilter => ({ tenantId, project: { kind: 'named', project: 'p' }, layer: 'L0' });

type Results = Record<string, { ids: string[]; scores: number[] }>;

async function recallAll(db: Db, tenantId: string): Promise<Results> {
  const results: Results = {};
  for (const [name, search] of Object.entries(SEARCHES)) {
    const hits: KnnHit[] = await searchCells(db, search, filterFor(tenantId), 10);
    results[name] = { ids: hits.map((hit) => hit.node_id), scores: hits.map((hit) => hit.score) };
  }
  return results;
}

function expectSameResults(actual: Results, expected: Results): void {
  for (const name of Object.keys(SEARCHES)) {
    expect(actual[name]?.ids, name).toEqual(expected[name]?.ids);
    const scores = actual[name]?.scores ?? [];
    (expected[name]?.scores ?? []).forEach((score, i) => expect(scores[i], `${name} #${i}`).toBeCloseTo(score, 5));
  }
}

function tenancySuite(createDb: () => Promise<Db>): void {
  let db: Db | undefined;
  afterAll(async () => db?.close());

  it('another tenant’s cells change none of a tenant’s results or scores, before and after the statistics', async () => {
    db = await createDb();
    // Tenant a: exactly as many cells naming the identifier as hybrid recall's bound allows, and others.
    for (let i = 0; i < HYBRID_TERM_CELLS; i += 1) await store(db, 'a', `deploy of service ${i} failed with ${IDENTIFIER}`, i);
    for (let i = 0; i < 20; i += 1) await store(db, 'a', `deploy of service ${i} succeeded after a retry`, 1000 + i);
    const fresh = await recallAll(db, 'a');
    // The identifier is within the bound: hybrid recall on identifiers adds its weight to a's cells.
    expect(fresh['hybrid, identifiers alone']?.scores[0]).toBeGreaterThan(1);
    await db.query('ANALYZE cells, cell_tenant_terms');
    const analysed = await recallAll(db, 'a');

    // Tenant b: one cell naming the identifier (one past a's bound, were cells counted across
    // tenants), and many naming a's other words.
    const theirs = await store(db, 'b', `the deploy failed with ${IDENTIFIER}`, 3);
    for (let i = 0; i < 300; i += 1) await store(db, 'b', `deploy ${i} of the fail-safe service`, 6000 + i);
    expectSameResults(await recallAll(db, 'a'), analysed);
    await db.query('ANALYZE cells, cell_tenant_terms');
    expectSameResults(await recallAll(db, 'a'), analysed);
    expect(fresh['lexical']?.ids).toEqual(analysed['lexical']?.ids.slice(0, fresh['lexical']?.ids.length));

    // And b finds its own cell, and none of a's.
    const mine = await recallAll(db, 'b');
    expect(mine['lexical']?.ids[0]).toBe(theirs);
    for (const name of Object.keys(SEARCHES)) {
      expect(mine[name]?.ids, name).toContain(theirs);
      const { rows } = await db.query<{ tenant_id: string }>('SELECT DISTINCT tenant_id FROM cells WHERE node_id = ANY($1::uuid[])', [mine[name]?.ids]);
      expect(rows.map((row) => row.tenant_id), name).toEqual(['b']);
    }
  });
}

/**
 * Keyed by tenant, a table of many small tenants has no key common enough for the statistics to
 * list (here a statistics target of 1 stands for a large table). Analysed and listing nothing is
 * not "never analysed": the tenant's terms are counted on the index and weighed by rarity.
 */
function unlistedSuite(createDb: () => Promise<Db>): void {
  let db: Db | undefined;
  afterAll(async () => db?.close());

  it('weighs a tenant’s terms by rarity when the statistics list none of its keys', async () => {
    db = await createDb();
    for (let t = 0; t < 150; t += 1) {
      for (let i = 0; i < 3; i += 1) await store(db, `small-${t}`, `note ${i} about ledger ${t} and invoices`, 10 * t + i);
    }
    const common = [await store(db, 'a', 'the nightly export runs on the common queue', 1), await store(db, 'a', 'a common queue backs the mailer', 2)];
    const rare = await store(db, 'a', 'the zephyrine queue replays webhooks', 3);
    await db.query('ALTER TABLE cell_tenant_terms ALTER COLUMN terms SET STATISTICS 1');
    await db.query('ANALYZE cells, cell_tenant_terms');
    const { rows } = await db.query<{ terms: string[] | null }>('SELECT terms FROM hyphae_term_statistics()');
    expect(rows[0]?.terms).toEqual([]);

    const search: CellSearch = { ...(SEARCHES['lexical'] as CellSearch), query: { text: 'common zephyrine', identifiers: [] } };
    const hits = await searchCells(db, search, filterFor('a'), 5);
    expect(hits[0]?.node_id).toBe(rare);
    const scoreOf = (id: string): number => hits.find((hit) => hit.node_id === id)?.score ?? 0;
    // zephyrine is held by one of a's three cells, common by two: it weighs more.
    expect(scoreOf(rare)).toBeGreaterThan(scoreOf(common[0] as string));
    expect(scoreOf(rare) + scoreOf(common[0] as string)).toBeCloseTo(1, 9);
  });
}

/** The database as it was before migration 0014, with bare terms written as that version's store wrote them. */
async function storeBareTerms(db: Queryable, tenantId: string, content: string, i: number): Promise<string> {
  const nodeId = randomUUID();
  await db.query(
    `WITH cell AS (INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
       VALUES ($1, $2, 'p', $3, 'Fact', 0.5, 'agent', $4::vector) RETURNING node_id, content)
     INSERT INTO cell_terms (node_id, terms)
     SELECT node_id, tsvector_to_array(to_tsvector('english', content) || array_to_tsvector($5::text[])) FROM cell`,
    [nodeId, tenantId, content, toVectorParam(vectorFor(i)), identifierTokens(content)],
  );
  return nodeId;
}

/** What the store writes for the content in the tenant's name. */
async function keyedTerms(db: Db, tenantId: string, content: string): Promise<string[]> {
  const { rows } = await db.query<{ terms: string[] }>(`SELECT ${cellTermsOf('$1::text', '$2::text', '$3::text[]')} AS terms`, [
    tenantTermPrefix(tenantId),
    content,
    identifierTokens(content),
  ]);
  return rows[0]?.terms ?? [];
}

async function termsOfCell(db: Db, nodeId: string): Promise<string[] | undefined> {
  const { rows } = await db.query<{ terms: string[] }>('SELECT terms FROM cell_tenant_terms WHERE node_id = $1', [nodeId]);
  return rows[0]?.terms;
}

function migrationSuite(createBareDb: () => Promise<Db>): void {
  let db: Db | undefined;
  let before0014: MigrationsCopy | undefined;
  beforeAll(async () => {
    before0014 = await migrationsWithout('0014_tenant_term_keys.sql');
  });
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });
  afterAll(async () => {
    await before0014?.remove();
  });

  const TENANTS = ['acme', 'acme.corp-2', 'tenant_ü ✓'];

  it('keys the terms of the cells stored before it as the store keys new ones, and recall finds them for their tenant alone', async () => {
    db = await createBareDb();
    await migrate(db, { ...IDENTITY, migrationsDir: (before0014 as MigrationsCopy).dir });
    const stored = [];
    for (const [i, tenantId] of TENANTS.entries()) {
      const content = `Deploy of billing failed with ERR_LEGACY_${i} in src/billing/retry.ts`;
      stored.push({ tenantId, content, nodeId: await storeBareTerms(db, tenantId, content, i) });
    }
    expect((await migrate(db, IDENTITY)).applied.map((m) => m.name)).toEqual(['tenant_term_keys']);

    for (const { tenantId, content, nodeId } of stored) {
      expect(await termsOfCell(db, nodeId)).toEqual(await keyedTerms(db, tenantId, content));
      const { rows } = await db.query<{ prefix: string }>('SELECT hyphae_tenant_term_prefix($1) AS prefix', [tenantId]);
      expect(rows[0]?.prefix).toBe(tenantTermPrefix(tenantId));
    }
    const legacy = stored[1] as (typeof stored)[number];
    const lexical: CellSearch = { ...(SEARCHES['lexical'] as CellSearch), query: { text: 'ERR_LEGACY_1', identifiers: ['err_legacy_1'] } };
    expect((await searchCells(db, lexical, filterFor(legacy.tenantId), 5)).map((hit) => hit.node_id)).toEqual([legacy.nodeId]);
    // Analysed by the migration: the statistics list each tenant's prefix, held by its one cell.
    const { rows } = await db.query<{ listed: boolean }>(`SELECT $1 = ANY(terms) AS listed FROM hyphae_term_statistics()`, [tenantTermPrefix('acme')]);
    expect(rows[0]?.listed).toBe(true);
  });

  it('keys what a server of the previous version writes through cell_terms during a rolling upgrade: stores, promotions, imports', async () => {
    db = await createBareDb();
    await migrate(db, IDENTITY);
    // A store as the previous version wrote it: bare terms, through the view.
    const content = 'Rollback of ledger after ERR_WINDOW_9 in the ledger service';
    const bare = await storeBareTerms(db, 'acme', content, 1);
    expect(await termsOfCell(db, bare)).toEqual(await keyedTerms(db, 'acme', content));
    // A promotion as the previous version wrote it: the origin's terms, read through the view (keyed already), kept as they are.
    const copy = randomUUID();
    await db.query(
      `WITH copy AS (INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding, layer, origin_node_id)
         SELECT $2, tenant_id, project, content, cell_type, salience, source_agent, embedding, 'L2', node_id FROM cells WHERE node_id = $1 RETURNING *)
       INSERT INTO cell_terms (node_id, terms) SELECT copy.node_id, t.terms FROM copy JOIN cell_terms t ON t.node_id = copy.origin_node_id`,
      [bare, copy],
    );
    expect(await termsOfCell(db, copy)).toEqual(await keyedTerms(db, 'acme', content));
    // An import as the previous version wrote it: several cells of several tenants in one statement.
    const imported = [
      { node_id: randomUUID(), tenant: 'acme', content: 'Imported: the billing cron moved to 03:00 after INC-5521' },
      { node_id: randomUUID(), tenant: 'globex', content: 'Imported: shard-12 of the ledger is read-only since v4.2.0' },
    ].map((cell) => ({ ...cell, identifiers: identifierTokens(cell.content), embedding: `[${vectorFor(7).join(',')}]` }));
    await db.query(
      `WITH added AS (
         INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
         SELECT r.node_id, r.tenant, 'p', r.content, 'Fact', 0.5, 'importer', r.embedding::vector
           FROM jsonb_to_recordset($1::jsonb) AS r(node_id uuid, tenant text, content text, embedding text)
         RETURNING node_id, content),
       terms AS (
         INSERT INTO cell_terms (node_id, terms)
         SELECT added.node_id, tsvector_to_array(to_tsvector('english', added.content) || array_to_tsvector(r.identifiers))
           FROM added JOIN jsonb_to_recordset($1::jsonb) AS r(node_id uuid, identifiers text[]) USING (node_id))
       SELECT node_id FROM added`,
      [JSON.stringify(imported)],
    );
    for (const cell of imported) expect(await termsOfCell(db, cell.node_id)).toEqual(await keyedTerms(db, cell.tenant, cell.content));
    // Deleting the cells deletes their terms.
    await db.query('DELETE FROM cells WHERE node_id = ANY($1::uuid[])', [[bare, copy, ...imported.map((cell) => cell.node_id)]]);
    expect((await db.query('SELECT 1 FROM cell_tenant_terms')).rows).toEqual([]);
  });

  it('leaves a new database’s terms table unanalysed', async () => {
    db = await createBareDb();
    await migrate(db, IDENTITY);
    const { rows } = await db.query<{ reltuples: number }>(`SELECT reltuples FROM pg_class WHERE relname = 'cell_tenant_terms'`);
    expect(rows[0]?.reltuples).toBe(-1);
  });
}

describeEachDriver('lexical terms keyed by tenant', ({ createDb }) => {
  describe('tenancy', () => tenancySuite(() => createDb({ dimension: DIMENSION })));
  describe('statistics listing no key', () => unlistedSuite(() => createDb({ dimension: DIMENSION })));
  describe('migration 0014', () => migrationSuite(() => createDb({ migrated: false })));
});

describe.skipIf(skipWithoutPostgres())('lexical terms keyed by tenant [native PostgreSQL]', () => {
  let server: RealPostgres | undefined;
  let databases = 0;
  beforeAll(async () => {
    server = await startRealPostgres();
  });
  afterAll(async () => {
    await server?.close();
  });
  const createDatabaseUrl = (): Promise<string> => createDatabase(server as RealPostgres, `tenant_terms_${++databases}`);
  const createBareDb = async (): Promise<Db> => openPgDb({ url: await createDatabaseUrl(), max: 2 });
  const createMigratedDb = async (): Promise<Db> => {
    const db = await createBareDb();
    await applyMigrations(db, { dimension: DIMENSION });
    return db;
  };
  describe('tenancy', () => tenancySuite(createMigratedDb));
  describe('statistics listing no key', () => unlistedSuite(createMigratedDb));
  describe('migration 0014', () => migrationSuite(createBareDb));

  it('migration 0014 waits for the previous version’s writes under way, and keys those that queue behind it', async () => {
    const before = await migrationsWithout('0014_tenant_term_keys.sql');
    const url = await createDatabaseUrl();
    const writer = await openPgDb({ url, max: 1 });
    // Three more sessions of the same database: the migration, a store arriving during it, an observer.
    const others = await Promise.all([openPgDb({ url, max: 1 }), openPgDb({ url, max: 1 }), openPgDb({ url, max: 1 })]);
    const [migrating, queued, watching] = others as [Db, Db, Db];
    try {
      await migrate(writer, { ...IDENTITY, migrationsDir: before.dir });
      const waiting = async (n: number): Promise<void> => {
        for (;;) {
          const { rows } = await watching.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE NOT granted AND relation = to_regclass('cell_terms')`);
          if ((rows[0]?.n ?? 0) >= n) return;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      };
      // A store under way when the migration starts: its transaction holds cell_terms.
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      let underWay = '';
      const storing = writer.transaction(async (tx) => {
        underWay = await storeBareTerms(tx, 'acme', 'Deploy of ledger failed with ERR_UNDER_WAY_1', 1);
        await held;
      });
      while (underWay === '') await new Promise((resolve) => setTimeout(resolve, 20));
      const migrated = migrate(migrating, IDENTITY);
      await waiting(1);
      // A store that starts while the migration waits: it queues behind it.
      const arriving = storeBareTerms(queued, 'acme', 'Rollback of ledger after ERR_QUEUED_2', 2);
      await waiting(2);
      release();
      await storing;
      expect((await migrated).applied.map((m) => m.name)).toEqual(['tenant_term_keys']);
      const lateId = await arriving;
      expect(await termsOfCell(watching, underWay)).toEqual(await keyedTerms(watching, 'acme', 'Deploy of ledger failed with ERR_UNDER_WAY_1'));
      expect(await termsOfCell(watching, lateId)).toEqual(await keyedTerms(watching, 'acme', 'Rollback of ledger after ERR_QUEUED_2'));
    } finally {
      await Promise.all(others.map((db) => db.close()));
      await writer.close();
      await before.remove();
    }
  });
});
