/**
 * The relation and subgraph scenarios (test/support/relation-scenarios.ts, subgraph-scenarios.ts)
 * on native PostgreSQL 18 with pgvector: the subgraph's recursive statement, the relations'
 * foreign keys and the advisory lock of an addition as a real server runs them.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { createDatabase, skipWithoutPostgres, startRealPostgres, type RealPostgres } from '../support/real-postgres.js';
import { relationScenarios } from '../support/relation-scenarios.js';
import type { ScenarioHarness } from '../support/scenario-harness.js';
import { subgraphScenarios } from '../support/subgraph-scenarios.js';

describe.skipIf(skipWithoutPostgres())('relations and subgraphs on native PostgreSQL', { timeout: 180_000 }, () => {
  let server: RealPostgres;
  let db: Db;
  let facade: ManagedMemoryFacade;
  let harness: ScenarioHarness;

  beforeAll(async () => {
    const embedder = new HashEmbedder();
    server = await startRealPostgres();
    db = await openPgDb({ url: await createDatabase(server, `d_${randomUUID().replaceAll('-', '')}`), max: 4 });
    await migrate(db, { modelId: embedder.modelId, dimension: embedder.dimension });
    facade = createMemoryFacade({ db, embedder, authCacheTtlMs: 0, config: { hitFlushIntervalMs: 3_600_000 } });
    const keys = createKeyAdministration(db);
    harness = { facade, db, principal: async (spec) => facade.authenticate((await keys.createKey({ ...spec })).key) };
  }, 180_000);
  afterAll(async () => {
    await facade?.close();
    await db?.close();
    await server?.close();
  });

  describe('relations', () => relationScenarios(() => harness));
  describe('subgraph', () => subgraphScenarios(() => harness));
});
