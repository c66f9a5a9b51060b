import { describe } from 'vitest';
import { openPgDb } from '../../src/store/pg-driver.js';
import type { Db, DbDriverName } from '../../src/store/db.js';
import { createTestDb } from './test-db.js';
import type { TestDbOptions } from './test-db.js';
import { startWireProtocolPostgres } from './wire-postgres.js';

export interface DriverHarness {
  readonly driver: DbDriverName;
  /** A fresh migrated database reached through this driver; its close() frees everything behind it. */
  createDb(options?: TestDbOptions & { readonly poolMax?: number }): Promise<Db>;
}

const HARNESSES: readonly DriverHarness[] = [
  { driver: 'pglite', createDb: (options) => createTestDb(options) },
  { driver: 'pg', createDb: createWireDb },
];

/** Declares the suite twice: once on PGlite in-process, once through `pg` over the wire protocol. */
export function describeEachDriver(name: string, fn: (harness: DriverHarness) => void): void {
  for (const harness of HARNESSES) {
    describe(`${name} [${harness.driver}]`, () => fn(harness));
  }
}

async function createWireDb(options: TestDbOptions & { readonly poolMax?: number } = {}): Promise<Db> {
  const server = await startWireProtocolPostgres(options);
  let db: Db;
  try {
    db = await openPgDb({ url: server.url, max: options.poolMax ?? 4 });
  } catch (error) {
    await server.close();
    throw error;
  }
  const opened = db;
  return {
    driver: opened.driver,
    knn: opened.knn,
    query: (sql, params) => opened.query(sql, params),
    transaction: (fn, transactionOptions) => opened.transaction(fn, transactionOptions),
    poolStats: () => opened.poolStats(),
    async close(): Promise<void> {
      try {
        await opened.close();
      } finally {
        await server.close();
      }
    },
  };
}
