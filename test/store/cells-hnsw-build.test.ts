/**
 * The cells HNSW index is built with the parameters measured for the database's embedding model
 * wherever it is built: by the migrations on a fresh database, by migration 0013 on a database
 * holding few cells (built beside the old index and swapped in), and by createVectorIndex (`hyphae
 * reembed`, a bulk import). A database past the rebuild limit, and an index that already has the
 * parameters, keep their index; a model not measured keeps pgvector's defaults. On PGlite, through
 * the wire protocol and on native PostgreSQL.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { cellsHnswBuild, createVectorIndex, dropVectorIndex, hnswReloptions } from '../../src/store/vector-indexes.js';
import { describeEachDriver } from '../support/each-driver.js';
import { migrationsWithout, type MigrationsCopy } from './migrations-dir.js';
import { createDatabase, skipWithoutPostgres, startRealPostgres, type RealPostgres } from '../support/real-postgres.js';

/** minilm's id, whose vectors were measured with a smaller graph, at a test's width. */
const MEASURED = { modelId: 'all-minilm-l6-v2-int8', dimension: 8 };
const UNMEASURED = { modelId: 'tiny-8', dimension: 8 };
const EXPECTED = hnswReloptions(cellsHnswBuild(MEASURED.modelId));
/** Past migration 0013's rebuild limit. */
const MANY_CELLS = 2_001;

interface IndexState {
  readonly oid: number;
  readonly reloptions: string[] | null;
  readonly valid: boolean;
}

async function indexState(db: Db, name: string): Promise<IndexState | undefined> {
  const { rows } = await db.query<IndexState>(
    `SELECT c.oid::int8 AS oid, c.reloptions, i.indisvalid AS valid FROM pg_class c JOIN pg_index i ON i.indexrelid = c.oid WHERE c.oid = to_regclass($1)`,
    [name],
  );
  return rows[0];
}

/** Migrates up to 0012 (the index as 0001 built it) and stores `cells` cells. */
async function migratedBefore0013(db: Db, dir: string, cells = 40): Promise<void> {
  await migrate(db, { ...MEASURED, migrationsDir: dir });
  await db.query(`INSERT INTO tenants (tenant_id) VALUES ('t')`);
  await db.query(
    `INSERT INTO cells (node_id, tenant_id, project, content, cell_type, salience, source_agent, embedding)
     SELECT gen_random_uuid(), 't', 'p', 'cell ' || i, 'Fact', 0.5, 'a',
       ('[' || array_to_string(ARRAY(SELECT CASE WHEN d = i % 8 THEN 1 ELSE 0.01 * ((i * 7 + d) % 5) END FROM generate_series(0, 7) d), ',') || ']')::vector
     FROM generate_series(0, $1::int - 1) i`,
    [cells],
  );
}

function cellsIndexSuite(createBareDb: () => Promise<Db>): void {
  let db: Db | undefined;
  let before0013: MigrationsCopy | undefined;
  beforeAll(async () => {
    before0013 = await migrationsWithout('0013_cells_hnsw_build.sql');
  });
  afterEach(async () => {
    await db?.close();
    db = undefined;
  });
  afterAll(async () => {
    await before0013?.remove();
  });

  it('builds the cells index with the model’s build parameters on a fresh database; beacons keep pgvector defaults', async () => {
    expect(EXPECTED).toEqual(['m=12', 'ef_construction=48']);
    db = await createBareDb();
    await migrate(db, MEASURED);
    expect((await indexState(db, 'cells_embedding'))?.reloptions).toEqual(EXPECTED);
    expect((await indexState(db, 'beacons_embedding'))?.reloptions).toBeNull();
  });

  it('keeps pgvector’s defaults for a model not measured', async () => {
    db = await createBareDb();
    await migrate(db, UNMEASURED);
    expect((await indexState(db, 'cells_embedding'))?.reloptions).toBeNull();
  });

  it('rebuilds the index of a database holding a few cells, valid and used by the kNN', async () => {
    db = await createBareDb();
    await migratedBefore0013(db, (before0013 as MigrationsCopy).dir);
    expect((await indexState(db, 'cells_embedding'))?.reloptions).toBeNull();
    await migrate(db, MEASURED);
    expect(await indexState(db, 'cells_embedding')).toMatchObject({ reloptions: EXPECTED, valid: true });
    expect(await indexState(db, 'cells_embedding_rebuilt')).toBeUndefined();
    const nearest = await db.transaction(async (tx) => {
      await tx.query('SET LOCAL enable_seqscan = off');
      const { rows } = await tx.query<{ content: string }>(`SELECT content FROM cells ORDER BY embedding <=> (SELECT embedding FROM cells WHERE content = 'cell 13') LIMIT 1`);
      return rows[0]?.content;
    });
    expect(nearest).toBe('cell 13');
  });

  it('keeps the index of a database past the rebuild limit (a build there costs minutes per million cells)', async () => {
    db = await createBareDb();
    await migratedBefore0013(db, (before0013 as MigrationsCopy).dir, MANY_CELLS);
    const before = await indexState(db, 'cells_embedding');
    await migrate(db, MEASURED);
    expect(await indexState(db, 'cells_embedding')).toEqual(before);
  });

  it('keeps an index that already has the build parameters', async () => {
    db = await createBareDb();
    await migratedBefore0013(db, (before0013 as MigrationsCopy).dir);
    await dropVectorIndex(db, 'cells');
    await createVectorIndex(db, 'cells', MEASURED.modelId);
    const built = await indexState(db, 'cells_embedding');
    await migrate(db, MEASURED);
    expect((await indexState(db, 'cells_embedding'))?.oid).toBe(built?.oid);
  });

  it('createVectorIndex (reembed, import) builds the index the migrations build, for the model it is given', async () => {
    db = await createBareDb();
    await migrate(db, MEASURED);
    await dropVectorIndex(db, 'cells');
    await createVectorIndex(db, 'cells', MEASURED.modelId);
    expect((await indexState(db, 'cells_embedding'))?.reloptions).toEqual(EXPECTED);
    await dropVectorIndex(db, 'cells');
    await createVectorIndex(db, 'cells', UNMEASURED.modelId);
    expect((await indexState(db, 'cells_embedding'))?.reloptions).toBeNull();
  });
}

describeEachDriver('cells HNSW build parameters', ({ createDb }) => {
  cellsIndexSuite(() => createDb({ migrated: false }));
});

describe.skipIf(skipWithoutPostgres())('cells HNSW build parameters [native PostgreSQL]', () => {
  let server: RealPostgres | undefined;
  let databases = 0;
  beforeAll(async () => {
    server = await startRealPostgres();
  });
  afterAll(async () => {
    await server?.close();
  });
  cellsIndexSuite(async () => openPgDb({ url: await createDatabase(server as RealPostgres, `hnsw_build_${++databases}`), max: 2 }));
});
