/** A bench's database by name: `native` (a throwaway PostgreSQL 18 + pgvector from HYPHAE_POSTGRES_ROOT, as the tests start theirs) or `pglite` (embedded). */
import type { Db } from '../../src/store/db.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { openPgliteDb } from '../../src/store/pglite-driver.js';
import { startRealPostgres } from '../../test/support/real-postgres.js';

export interface BenchDb {
  readonly db: Db;
  /** Native only: a second pool on the same database that sends every statement unnamed, to price the prepared statements. */
  readonly unprepared?: Db;
  readonly label: string;
  close(): Promise<void>;
}

/** Opens `kind` (the value of the bench's setting named `setting`); a missing PostgreSQL fails, naming how to install it. */
export async function openBenchDb(kind: string, setting: string): Promise<BenchDb> {
  if (kind === 'pglite') {
    const db = await openPgliteDb();
    return { db, label: 'embedded PGlite', close: () => db.close() };
  }
  if (kind !== 'native') throw new Error(`${setting} must be native or pglite`);
  const server = await startRealPostgres();
  try {
    const db = await openPgDb({ url: server.url });
    const unprepared = await openPgDb({ url: server.url, preparedStatements: 0 });
    return {
      db,
      unprepared,
      label: 'native PostgreSQL 18',
      close: async () => {
        await db.close();
        await unprepared.close();
        await server.close();
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}
