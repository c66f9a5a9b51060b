/**
 * One PostgreSQL (a template-cloned PGlite with pgvector) served over the wire protocol, so
 * several replicas — in this process or in child processes — share it through their own `pg` pools.
 */
import { openPgDb } from '../../src/store/pg-driver.js';
import type { Db } from '../../src/store/db.js';
import { startWireProtocolPostgres } from '../support/wire-postgres.js';

export interface SharedDatabase {
  /** postgresql://… URL of the wire-protocol server. */
  readonly url: string;
  /** A Db over its own pool, as one replica would hold. */
  connect(maxConnections?: number): Promise<Db>;
  close(): Promise<void>;
}

/** With a dimension the schema is migrated here; without, the database is bare and `hyphae serve` migrates it. */
export async function startSharedDatabase(dimension?: number): Promise<SharedDatabase> {
  const server = await startWireProtocolPostgres(
    dimension === undefined ? { migrated: false, maxConnections: 64 } : { dimension, maxConnections: 64 },
  );
  const pools: Db[] = [];
  return {
    url: server.url,
    async connect(maxConnections = 4): Promise<Db> {
      const db = await openPgDb({ url: server.url, max: maxConnections });
      pools.push(db);
      return db;
    },
    async close(): Promise<void> {
      await Promise.all(pools.map((db) => db.close().catch(() => undefined)));
      await server.close();
    },
  };
}
