import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inject } from 'vitest';
import { applyMigrations, migrate } from '../../src/store/migrator.js';
import { openPgliteDb } from '../../src/store/pglite-driver.js';
import type { PgliteDb } from '../../src/store/pglite-driver.js';
import { buildTestTemplates, TEMPLATE_DIMENSION } from './template-db.js';
import type { TestTemplatePaths } from './template-db.js';

export interface TestDbOptions {
  /** Records this embedder model id (with the dimension); default: nothing recorded, so the first migrate() records its own. */
  readonly modelId?: string;
  /** Embedding dimension of the schema; default 512 (the template's). */
  readonly dimension?: number;
  /** false: a bare clone (initdb only, no migration applied), for migrator tests; default true. */
  readonly migrated?: boolean;
}

export type TestDb = PgliteDb;

const templateBlobs = new Map<string, Promise<Blob>>();
let localTemplates: Promise<TestTemplatePaths> | undefined;

/** A fresh in-memory PGlite cloned from the run's template (never initdb per test), migrated. */
export async function createTestDb(options: TestDbOptions = {}): Promise<TestDb> {
  const db = await openPgliteDb({ loadFrom: await loadTemplate(options) });
  try {
    await prepareTestSchema(db, options);
    return db;
  } catch (error) {
    await db.close();
    throw error;
  }
}

/** The dump to clone: the migrated template at 512, else the bare one (migrated afterwards if asked). */
export async function loadTemplate(options: TestDbOptions = {}): Promise<Blob> {
  const paths = await templatePaths();
  const useMigrated = options.migrated !== false && (options.dimension ?? TEMPLATE_DIMENSION) === TEMPLATE_DIMENSION;
  const path = useMigrated ? paths.migrated : paths.bare;
  let blob = templateBlobs.get(path);
  if (blob === undefined) {
    blob = readFile(path).then((bytes) => new Blob([bytes], { type: 'application/x-tar' }));
    templateBlobs.set(path, blob);
  }
  return blob;
}

/** Brings a template clone to the requested dimension and records the model id when given. */
export async function prepareTestSchema(db: PgliteDb, options: TestDbOptions): Promise<void> {
  const dimension = options.dimension ?? TEMPLATE_DIMENSION;
  if (options.migrated === false) return;
  if (options.modelId !== undefined) {
    await migrate(db, { modelId: options.modelId, dimension });
  } else if (dimension !== TEMPLATE_DIMENSION) {
    await applyMigrations(db, { dimension });
  }
}

async function templatePaths(): Promise<TestTemplatePaths> {
  const provided = inject('hyphaeTestTemplates') as TestTemplatePaths | undefined;
  if (provided !== undefined) return provided;
  // Run without the unit or integration project's globalSetup (another config): build once in this worker.
  localTemplates ??= mkdtemp(join(tmpdir(), 'hyphae-test-templates-')).then(buildTestTemplates);
  return localTemplates;
}
