/**
 * One native PostgreSQL with pgvector (test/support/real-postgres.ts) that several replicas — in
 * this process or in child processes — share through their own `pg` pools: real concurrent
 * sessions, so SKIP LOCKED, row locks and advisory locks are what the tests exercise.
 */
import { applyMigrations } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import type { Db } from '../../src/store/db.js';
import { startRealPostgres } from './real-postgres.js';
import type { RealPostgres } from './real-postgres.js';

export { skipWithoutPostgres } from './real-postgres.js';

export interface SharedDatabase {
  /** postgresql://… URL of the server. */
  readonly url: string;
  /** The server itself, to stop, crash or restart it. */
  readonly server: RealPostgres;
  /** A Db over its own pool, as one replica would hold; its sessions carry applicationName when given. */
  connect(maxConnections?: number, applicationName?: string): Promise<Db>;
  close(): Promise<void>;
}

/** With a dimension the schema is migrated here; without, the database is bare and `hyphae serve` migrates it. */
export async function startSharedDatabase(dimension?: number): Promise<SharedDatabase> {
  const server = await startRealPostgres();
  const pools: Db[] = [];
  const connect = async (maxConnections = 4, applicationName?: string): Promise<Db> => {
    const url = applicationName === undefined ? server.url : `${server.url}?application_name=${encodeURIComponent(applicationName)}`;
    const db = await openPgDb({ url, max: maxConnections });
    pools.push(db);
    return db;
  };
  try {
    if (dimension !== undefined) await applyMigrations(await connect(1), { dimension });
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    url: server.url,
    server,
    connect,
    async close(): Promise<void> {
      await Promise.all(pools.map((db) => db.close().catch(() => undefined)));
      await server.close();
    },
  };
}
