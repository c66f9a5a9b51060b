/**
 * The database the configuration names (the embedded PGlite folder, or PostgreSQL at
 * HYPHAE_DATABASE_URL) with its pool and HNSW scan settings, for every command that opens one.
 */
import type { HyphaeConfig } from '../core/config.js';
import type { Db } from '../store/db.js';
import { migrate, readEmbeddingIdentity, type MigrateResult } from '../store/migrator.js';
import { openDb, type OpenDbConfig } from '../store/open-db.js';
import { createConfiguredEmbedder } from './configured-embedder.js';

/** `command` names the process in the PGlite data-folder lock, e.g. "hyphae serve". */
export function databaseSettingsFrom(config: HyphaeConfig, command: string): OpenDbConfig {
  const { dataDir, databaseUrl, poolMax, acquireTimeoutMs, statementTimeoutMs } = config.database;
  return { dataDir, ...(databaseUrl === undefined ? {} : { databaseUrl }), poolMax, acquireTimeoutMs, statementTimeoutMs, knn: config.knn, command };
}

export function openConfiguredDatabase(config: HyphaeConfig, command: string): Promise<Db> {
  return openDb(databaseSettingsFrom(config, command));
}

export interface MigratedDatabase {
  readonly db: Db;
  readonly migration: MigrateResult;
  close(): Promise<void>;
}

/**
 * The database with its schema brought up to date, for the commands that need no server
 * (`migrate`, `keys`). The embedder is only described, never loaded: its model id and dimension
 * are what the schema is checked against.
 */
export async function openMigratedDatabase(config: HyphaeConfig, command: string): Promise<MigratedDatabase> {
  const db = await openConfiguredDatabase(config, command);
  try {
    const recordedModelId = (await readEmbeddingIdentity(db))?.modelId;
    const embedder = await createConfiguredEmbedder(config, recordedModelId === undefined ? {} : { recordedModelId });
    const identity = { modelId: embedder.modelId, dimension: embedder.dimension };
    await embedder.close();
    const migration = await migrate(db, identity);
    return { db, migration, close: () => db.close() };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
