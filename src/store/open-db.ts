import { openPgDb } from './pg-driver.js';
import { openPgliteDb } from './pglite-driver.js';
import type { Db } from './db.js';
import type { KnnSettings } from './knn-session.js';

export interface OpenDbConfig {
  /** HYPHAE_DATABASE_URL; when set PostgreSQL is used and the data folder is ignored. */
  readonly databaseUrl?: string;
  /** HYPHAE_DATA_DIR, the embedded PGlite folder. */
  readonly dataDir: string;
  /** pg pool size (PostgreSQL only). */
  readonly poolMax?: number;
  /** How long a call waits for a connection before UNAVAILABLE (PostgreSQL only). */
  readonly acquireTimeoutMs?: number;
  /** statement_timeout of every session, 0 = none (PostgreSQL only). */
  readonly statementTimeoutMs?: number;
  /** HNSW scan settings of every session (both drivers); unset ones keep KNN_DEFAULTS. */
  readonly knn?: Partial<KnnSettings>;
  /** Names this process in the data-folder lock, e.g. "hyphae serve" (PGlite only). */
  readonly command?: string;
}

/** Opens the database the configuration names: PostgreSQL when a URL is set, else PGlite in the data folder. */
export async function openDb(config: OpenDbConfig): Promise<Db> {
  if (config.databaseUrl !== undefined && config.databaseUrl !== '') {
    return openPgDb({
      url: config.databaseUrl,
      ...(config.poolMax === undefined ? {} : { max: config.poolMax }),
      ...(config.acquireTimeoutMs === undefined ? {} : { acquireTimeoutMs: config.acquireTimeoutMs }),
      ...(config.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: config.statementTimeoutMs }),
      ...(config.knn === undefined ? {} : { knn: config.knn }),
    });
  }
  return openPgliteDb({
    dataDir: config.dataDir,
    ...(config.command === undefined ? {} : { lockCommand: config.command }),
    ...(config.knn === undefined ? {} : { knn: config.knn }),
  });
}
