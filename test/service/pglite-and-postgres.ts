/**
 * Registers a suite of cases twice: on a PGlite cloned from the test template, and on a native
 * PostgreSQL with pgvector (test/support/real-postgres.ts), skipped with its reason when that is not
 * installed — the same cases on both databases the product runs on.
 */
import type { Db } from '../../src/store/db.js';
import { skipWithoutPostgres, startSharedDatabase } from '../support/shared-database.js';
import { createTestDb } from '../support/test-db.js';

export interface SuiteDatabase {
  readonly db: Db;
  /** Frees the database and everything behind it (the PostgreSQL server for the native one). */
  close(): Promise<void>;
}

/** Declares the suite named `name` on the database `open` gives; `skip` when it cannot run here. */
export type DatabaseSuite = (name: string, open: () => Promise<SuiteDatabase>, skip?: boolean) => void;

/** PostgreSQL's schema is migrated for this dimension (the hash embedder's) and reached through a pool of this many. */
const NATIVE_DIMENSION = 512;
const NATIVE_POOL = 8;

export function onPgliteAndPostgres(suite: DatabaseSuite): void {
  suite('pglite', async () => {
    const db = await createTestDb();
    return { db, close: () => db.close() };
  });
  suite(
    'postgres',
    async () => {
      const shared = await startSharedDatabase(NATIVE_DIMENSION);
      try {
        return { db: await shared.connect(NATIVE_POOL), close: () => shared.close() };
      } catch (error) {
        await shared.close();
        throw error;
      }
    },
    skipWithoutPostgres(),
  );
}
