/** A facade scenario harness on a throwaway native PostgreSQL 18 with pgvector (a database of its own, migrated for the hash embedder). */
import { randomUUID } from 'node:crypto';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { createMemoryFacade } from '../../src/service/index.js';
import { migrate } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { createDatabase, startRealPostgres } from '../support/real-postgres.js';
import type { ScenarioHarness } from '../support/scenario-harness.js';

export interface NativeHarness {
  readonly harness: ScenarioHarness;
  /** The database's URL, for client tools (pg_dump). */
  readonly url: string;
  close(): Promise<void>;
}

export async function startNativeHarness(): Promise<NativeHarness> {
  const embedder = new HashEmbedder();
  const server = await startRealPostgres();
  try {
    const url = await createDatabase(server, `d_${randomUUID().replaceAll('-', '')}`);
    const db = await openPgDb({ url, max: 4 });
    await migrate(db, { modelId: embedder.modelId, dimension: embedder.dimension });
    const facade = createMemoryFacade({ db, embedder, authCacheTtlMs: 0, config: { hitFlushIntervalMs: 3_600_000 } });
    const keys = createKeyAdministration(db);
    return {
      harness: { facade, db, principal: async (spec) => facade.authenticate((await keys.createKey({ ...spec })).key) },
      url,
      async close(): Promise<void> {
        await facade.close();
        await db.close();
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}
