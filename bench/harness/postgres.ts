/** Native PostgreSQL fixtures: a throwaway cluster (HYPHAE_POSTGRES_ROOT), databases on it, cells bulk-loaded. */
import pg from 'pg';
import type { Embedder } from '../../src/embed/embedder.js';
import { migrate } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { startRealPostgres, type RealPostgres } from '../../test/support/real-postgres.js';
import type { Db, Queryable } from '../../src/store/db.js';
import { parentPid } from './process-cpu.js';
import { bulkLoad } from './bulk-load.js';

/** A throwaway cluster started as the tests start theirs, with the memory a 100k HNSW build wants; fails, naming how to install it, when PostgreSQL with pgvector is absent. */
export function startBenchPostgres(): Promise<RealPostgres> {
  return startRealPostgres(undefined, { settings: { shared_buffers: '512MB', maintenance_work_mem: '1GB' } });
}

/** The postmaster of the server `q` is connected to (the parent of its backend), for charging the server its CPU. */
export async function postmasterPid(q: Queryable): Promise<number> {
  const { rows } = await q.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  return parentPid((rows[0] as { pid: number }).pid);
}

/** Runs `sql` on `server`'s `postgres` database (where CREATE and DROP DATABASE run). */
async function onServer(server: RealPostgres, sql: string): Promise<void> {
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** Creates database `name` on `server`; resolves with its URL. */
export async function createDatabase(server: RealPostgres, name: string): Promise<string> {
  await onServer(server, `CREATE DATABASE ${name}`);
  return server.url.replace(/\/postgres$/, `/${name}`);
}

/** Drops database `name` on `server`. */
export function dropDatabase(server: RealPostgres, name: string): Promise<void> {
  return onServer(server, `DROP DATABASE ${name}`);
}

export interface LoadedDatabase {
  readonly url: string;
  /** How long the HNSW index build after the bulk load took. */
  readonly indexMs: number;
}

/**
 * Database `name`, migrated for `embedder`, holding `texts` as the bench tenant's cells (bulk-loaded
 * by SQL, `beforeIndex` run on them, then indexed and analysed) over one connection with no statement timeout.
 */
export async function loadCellDatabase(server: RealPostgres, name: string, embedder: Embedder, texts: readonly string[], beforeIndex?: (db: Db) => Promise<void>): Promise<LoadedDatabase> {
  const url = await createDatabase(server, name);
  const loader = await openPgDb({ url, max: 1, statementTimeoutMs: 0 });
  try {
    await migrate(loader, { modelId: embedder.modelId, dimension: embedder.dimension });
    return { url, indexMs: await bulkLoad(loader, 'cells', texts, await embedder.embed(texts), undefined, beforeIndex) };
  } finally {
    await loader.close();
  }
}
