/**
 * Opens the configured database and brings its schema up to date, for the commands that need
 * the database but no server (`migrate`, `keys`). The embedder is only described, never loaded:
 * its model id and dimension are what the schema is checked against.
 */
import type { HyphaeConfig } from '../core/config.js';
import { createEmbedder } from '../embed/create-embedder.js';
import type { Db } from '../store/db.js';
import { embedderConfigFrom } from './embedder-config.js';
import { migrate, type MigrateResult } from '../store/migrator.js';
import { openDb } from '../store/open-db.js';
import { databasePoolSettings } from '../service/runtime.js';

export interface MigratedDatabase {
  readonly db: Db;
  readonly migration: MigrateResult;
  close(): Promise<void>;
}

export async function openMigratedDatabase(config: HyphaeConfig, command: string): Promise<MigratedDatabase> {
  const embedder = await createEmbedder(embedderConfigFrom(config));
  const identity = { modelId: embedder.modelId, dimension: embedder.dimension };
  await embedder.close();
  const db = await openDb({
    dataDir: config.dataDir,
    ...(config.databaseUrl === undefined ? {} : { databaseUrl: config.databaseUrl }),
    command,
    ...databasePoolSettings(config),
  });
  try {
    const migration = await migrate(db, identity);
    return { db, migration, close: () => db.close() };
  } catch (error) {
    await db.close().catch(() => undefined);
    throw error;
  }
}
