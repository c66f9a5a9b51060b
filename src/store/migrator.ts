import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { InvalidArgumentError } from '../core/errors.js';
import { EmbeddingModelMismatchError, MigrationError } from './errors.js';
import type { Db, Queryable, TransactionOptions } from './db.js';
import { cellsHnswBuild, hnswBuildClause, hnswReloptions } from './vector-indexes.js';

/** One numbered SQL file of src/store/migrations, e.g. 0001_core.sql. */
export interface Migration {
  readonly version: number;
  readonly name: string;
  /** sha256 of the file as written (line endings normalised), before the placeholders are substituted. */
  readonly checksum: string;
  readonly sql: string;
}

export interface EmbeddingIdentity {
  readonly modelId: string;
  readonly dimension: number;
}

export interface ApplyMigrationsOptions {
  /** The embedding dimension substituted for {{EMBEDDING_DIMENSION}}. */
  readonly dimension: number;
  /** The embedding model the cells index is built for (its build parameters: vector-indexes.ts); none, pgvector's defaults. */
  readonly modelId?: string;
  /** Where the .sql files are; default: the migrations folder of this package. */
  readonly migrationsDir?: string;
}

export interface MigrateOptions extends ApplyMigrationsOptions {
  /** The embedder's model id, recorded on the first start and checked on every later one. */
  readonly modelId: string;
}

export interface MigrateResult {
  /** Migrations applied by this call, in order (empty when the schema was current). */
  readonly applied: readonly { readonly version: number; readonly name: string }[];
  readonly identity: EmbeddingIdentity;
}

/**
 * Transactions under the migration lock run without a statement timeout: waiting for another
 * process's migration, or building an HNSW index over every row, may rightly take minutes.
 */
export const SCHEMA_CHANGE: TransactionOptions = { statementTimeoutMs: 0 };

/** Every migrating process takes this transaction-scoped advisory lock first, so one migrates at a time. */
const MIGRATION_LOCK_KEY = 7_021_960_851_968_001;
// pgvector's HNSW index accepts at most 2000 dimensions.
const MAX_INDEXED_DIMENSION = 2000;
const MIGRATION_FILE = /^(\d{4})_([a-z0-9_]+)\.sql$/;
const PLACEHOLDER = /\{\{([A-Z_]+)\}\}/g;
const META_MODEL = 'embedding_model';
const META_DIMENSION = 'embedding_dimension';

/** Applies pending migrations, then records or checks the embedder identity (model id and dimension). */
export async function migrate(db: Db, options: MigrateOptions): Promise<MigrateResult> {
  const configured = { modelId: options.modelId, dimension: options.dimension };
  // Refuse before a pending migration could create vector columns of the wrong width.
  await assertCompatibleEmbedder(db, configured);
  const applied = await applyMigrations(db, options);
  const identity = await ensureEmbeddingIdentity(db, configured);
  return { applied, identity };
}

/**
 * Applies pending migrations, each in its own transaction under the migration advisory lock;
 * a second caller waits, then finds them applied. Refuses when an applied file has changed
 * or the database holds a migration this code does not know.
 */
export async function applyMigrations(
  db: Db,
  options: ApplyMigrationsOptions,
): Promise<{ readonly version: number; readonly name: string }[]> {
  assertDimension(options.dimension);
  const migrations = await loadMigrations(options.migrationsDir);
  await db.transaction(async (tx) => {
    await lockMigrations(tx);
    await tx.query(
      `CREATE TABLE IF NOT EXISTS schema_migrations (
         version    integer PRIMARY KEY,
         name       text NOT NULL,
         checksum   text NOT NULL,
         applied_at timestamptz NOT NULL DEFAULT now()
       )`,
    );
    const { rows } = await tx.query<{ version: number; name: string; checksum: string }>(
      'SELECT version, name, checksum FROM schema_migrations ORDER BY version',
    );
    for (const row of rows) verifyApplied(migrations, row);
  }, SCHEMA_CHANGE);
  const applied: { version: number; name: string }[] = [];
  for (const migration of migrations) {
    const didApply = await db.transaction(async (tx) => {
      await lockMigrations(tx);
      const { rows } = await tx.query<{ version: number; name: string; checksum: string }>(
        'SELECT version, name, checksum FROM schema_migrations WHERE version = $1',
        [migration.version],
      );
      const existing = rows[0];
      if (existing !== undefined) {
        verifyApplied(migrations, existing);
        return false;
      }
      await tx.query(substitutePlaceholders(migration.sql, options));
      await tx.query('INSERT INTO schema_migrations (version, name, checksum) VALUES ($1, $2, $3)', [
        migration.version,
        migration.name,
        migration.checksum,
      ]);
      return true;
    }, SCHEMA_CHANGE);
    if (didApply) applied.push({ version: migration.version, name: migration.name });
  }
  return applied;
}

/** The embedder identity recorded in the database, or undefined when none is recorded yet. */
export async function readEmbeddingIdentity(db: Queryable): Promise<EmbeddingIdentity | undefined> {
  const { rows } = await db.query<{ exists: boolean }>("SELECT to_regclass('hyphae_meta') IS NOT NULL AS exists");
  if (rows[0]?.exists !== true) return undefined;
  return readRecordedIdentity(db);
}

/** Reads the numbered .sql files in version order. */
export async function loadMigrations(migrationsDir?: string): Promise<Migration[]> {
  const dir = migrationsDir ?? (await defaultMigrationsDir());
  const files = (await readdir(dir)).filter((file) => file.endsWith('.sql')).sort();
  const migrations: Migration[] = [];
  for (const file of files) {
    const match = MIGRATION_FILE.exec(file);
    if (match === null || match[1] === undefined || match[2] === undefined) {
      throw new MigrationError(`migration file ${file} in ${dir} is not named NNNN_name.sql`);
    }
    const sql = (await readFile(join(dir, file), 'utf8')).replace(/\r\n/g, '\n');
    const version = Number(match[1]);
    if (migrations.some((m) => m.version === version)) {
      throw new MigrationError(`two migration files in ${dir} share version ${match[1]}`);
    }
    migrations.push({ version, name: match[2], checksum: createHash('sha256').update(sql).digest('hex'), sql });
  }
  return migrations;
}

async function ensureEmbeddingIdentity(db: Db, configured: EmbeddingIdentity): Promise<EmbeddingIdentity> {
  return db.transaction(async (tx) => {
    await lockMigrations(tx);
    if (await assertCompatibleEmbedder(tx, configured)) return configured;
    await recordEmbeddingIdentity(tx, configured);
    return configured;
  }, SCHEMA_CHANGE);
}

/** Records the embedder the database's vectors come from (first start, or the end of `hyphae reembed`). */
export async function recordEmbeddingIdentity(tx: Queryable, identity: EmbeddingIdentity): Promise<void> {
  await tx.query('INSERT INTO hyphae_meta (key, value) VALUES ($1, $2), ($3, $4) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value', [
    META_MODEL,
    identity.modelId,
    META_DIMENSION,
    String(identity.dimension),
  ]);
}

/**
 * Throws unless the database was created for this embedder; true when an identity is recorded.
 * With nothing recorded yet (a fresh database, or a test template) the schema's vector width decides.
 */
async function assertCompatibleEmbedder(db: Queryable, configured: EmbeddingIdentity): Promise<boolean> {
  const recorded = await readEmbeddingIdentity(db);
  if (recorded !== undefined) {
    if (recorded.modelId !== configured.modelId || recorded.dimension !== configured.dimension) {
      throw new EmbeddingModelMismatchError(recorded, configured);
    }
    return true;
  }
  const schemaDimension = await readSchemaDimension(db);
  if (schemaDimension !== undefined && schemaDimension !== configured.dimension) {
    throw new EmbeddingModelMismatchError({ modelId: undefined, dimension: schemaDimension }, configured);
  }
  return false;
}

async function readRecordedIdentity(db: Queryable): Promise<EmbeddingIdentity | undefined> {
  const { rows } = await db.query<{ key: string; value: string }>('SELECT key, value FROM hyphae_meta WHERE key = ANY($1)', [
    [META_MODEL, META_DIMENSION],
  ]);
  const model = rows.find((row) => row.key === META_MODEL)?.value;
  const dimension = rows.find((row) => row.key === META_DIMENSION)?.value;
  if (model === undefined || dimension === undefined) return undefined;
  return { modelId: model, dimension: Number(dimension) };
}

async function readSchemaDimension(db: Queryable): Promise<number | undefined> {
  const { rows } = await db.query<{ type: string }>(
    `SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute
      WHERE attrelid = to_regclass('cells') AND attname = 'embedding' AND NOT attisdropped`,
  );
  const match = /^vector\((\d+)\)$/.exec(rows[0]?.type ?? '');
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** Serialises schema changes: migrations and the column swap at the end of `hyphae reembed`. */
export async function lockMigrations(tx: Queryable): Promise<void> {
  await tx.query(`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
}

function verifyApplied(migrations: readonly Migration[], row: { version: number; name: string; checksum: string }): void {
  const known = migrations.find((m) => m.version === row.version);
  const label = `${String(row.version).padStart(4, '0')}_${row.name}`;
  if (known === undefined) {
    throw new MigrationError(`the database has migration ${label}, which this version of hyphae does not know; upgrade hyphae`);
  }
  if (known.checksum !== row.checksum) {
    throw new MigrationError(
      `migration ${label} was changed after it was applied (checksum ${row.checksum.slice(0, 12)}… in the database, ` +
        `${known.checksum.slice(0, 12)}… on disk); restore the original file and add a new migration instead`,
    );
  }
}

/**
 * The cells index is rebuilt for its model by a migration only up to this many cells: a build
 * costs minutes per million cells, with stores waiting.
 */
const CELLS_HNSW_REBUILD_LIMIT = 2_000;

/** The embedding dimension, and the cells index's build parameters for the model, so that the migrations and createVectorIndex build one index. */
function substitutePlaceholders(sql: string, identity: ApplyMigrationsOptions): string {
  const build = cellsHnswBuild(identity.modelId ?? '');
  const reloptions = hnswReloptions(build).map((option) => `'${option}'`);
  const values: Readonly<Record<string, string>> = {
    EMBEDDING_DIMENSION: String(identity.dimension),
    CELLS_HNSW_WITH: hnswBuildClause(build),
    CELLS_HNSW_RELOPTIONS: `ARRAY[${reloptions.join(', ')}]::text[]`,
    CELLS_HNSW_REBUILD_LIMIT: String(CELLS_HNSW_REBUILD_LIMIT),
  };
  return sql.replace(PLACEHOLDER, (placeholder, name: string) => {
    const value = values[name];
    if (value === undefined) throw new MigrationError(`migration uses unknown placeholder ${placeholder}`);
    return value;
  });
}

function assertDimension(dimension: number): void {
  if (!Number.isInteger(dimension) || dimension < 1 || dimension > MAX_INDEXED_DIMENSION) {
    throw new InvalidArgumentError(`embedding dimension must be an integer from 1 to ${MAX_INDEXED_DIMENSION}`, [
      { path: 'dimension', message: `got ${dimension}` },
    ]);
  }
}

/**
 * The .sql files sit beside this module: in src/store/ for the sources, and in dist/src/store/
 * because `npm run build` (scripts/build.mjs) copies them there, so dist/ runs without src/.
 */
async function defaultMigrationsDir(): Promise<string> {
  const path = fileURLToPath(new URL('./migrations/', import.meta.url));
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory() === true) return path;
  throw new MigrationError(`no migrations folder at ${path} (a dist/ built without \`npm run build\`?)`);
}
