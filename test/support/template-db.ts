import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { applyMigrations } from '../../src/store/migrator.js';
import { openPgliteDb } from '../../src/store/pglite-driver.js';

/** The embedding dimension the migrated template is built with (the default embedder's). */
export const TEMPLATE_DIMENSION = 512;

/** Paths of the two dumped PGlite data dirs a test run clones from. */
export interface TestTemplatePaths {
  /** initdb + migrations at TEMPLATE_DIMENSION; no embedder identity recorded. */
  readonly migrated: string;
  /** initdb only, for databases of another dimension (migrated per test). */
  readonly bare: string;
}

declare module 'vitest' {
  interface ProvidedContext {
    hyphaeTestTemplates: TestTemplatePaths;
  }
}

/** Runs initdb once, dumps the bare data dir, migrates it and dumps it again. */
export async function buildTestTemplates(dir: string): Promise<TestTemplatePaths> {
  const paths: TestTemplatePaths = { migrated: join(dir, 'migrated.tar'), bare: join(dir, 'bare.tar') };
  // 1 MB WAL segments instead of 16 MB: a dump a quarter smaller, each clone ~15% faster to open.
  const db = await openPgliteDb({ initdbArgs: ['--wal-segsize=1'] });
  try {
    await writeFile(paths.bare, await dumpBytes(db.pglite.dumpDataDir('none')));
    await applyMigrations(db, { dimension: TEMPLATE_DIMENSION });
    await writeFile(paths.migrated, await dumpBytes(db.pglite.dumpDataDir('none')));
  } finally {
    await db.close();
  }
  return paths;
}

async function dumpBytes(dump: Promise<Blob>): Promise<Uint8Array> {
  return new Uint8Array(await (await dump).arrayBuffer());
}
