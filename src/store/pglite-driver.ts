import { PGlite } from '@electric-sql/pglite';
import type { PGliteOptions, Results, Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { acquireDataDirLock } from './data-dir-lock.js';
import type { DataDirLock } from './data-dir-lock.js';
import type { Db, PoolStats, QueryResult, Queryable } from './db.js';
import { knnSessionSetup, knnSettings, type KnnSettings } from './knn-session.js';
import { CUSTOM_PLANS_SETUP, PgliteStatements } from './pglite-statements.js';
import { isVectorParam, vectorParamValues } from './vector-param.js';
import { toVectorText } from './vector-text.js';

export interface PgliteDbOptions {
  /** The data folder; undefined keeps the database in memory. */
  readonly dataDir?: string;
  /** A data folder dumped with `dumpDataDir()` to start from (test templates). */
  readonly loadFrom?: Blob | File;
  /** Shown to another process refused by the data-folder lock, e.g. "hyphae serve". */
  readonly lockCommand?: string;
  /** Extra initdb arguments, used only when a new database is created (test templates shrink their WAL). */
  readonly initdbArgs?: readonly string[];
  /** HNSW scan settings of the session (src/store/knn-session.ts); defaults KNN_DEFAULTS. */
  readonly knn?: Partial<KnnSettings>;
  /**
   * false: parameterised statements go through PGlite's own `query` (an unnamed statement,
   * parsed every time) instead of the cached named statements of src/store/pglite-statements.ts;
   * for measuring one against the other (docs/storage.md) and checking they bind alike.
   */
  readonly cachedStatements?: boolean;
}

/** The PGlite driver; `pglite` is exposed for tooling that needs the engine (dumps, wire server). */
export interface PgliteDb extends Db {
  readonly driver: 'pglite';
  readonly pglite: PGlite;
}

type PgliteRunner = Pick<Transaction, 'query' | 'exec'>;

const PGLITE_POOL_STATS: PoolStats = { total: 1, idle: 1, waiting: 0, max: 1, acquireTimeouts: 0 };

/**
 * Opens PGlite with pgvector. PGlite is one connection: its own mutexes run one statement at a
 * time and hold plain queries back while a transaction is open, so calls interleave safely.
 * Never call `db.query` or `db.transaction` inside a transaction callback (it would wait on itself);
 * use the `tx` it receives.
 */
export async function openPgliteDb(options: PgliteDbOptions = {}): Promise<PgliteDb> {
  const dataDir = options.dataDir === undefined ? undefined : resolve(options.dataDir);
  const knn = knnSettings(options.knn);
  const lock: DataDirLock | undefined =
    dataDir === undefined
      ? undefined
      : await acquireDataDirLock(dataDir, options.lockCommand === undefined ? {} : { command: options.lockCommand });
  let created: PGlite | undefined;
  try {
    created = await PGlite.create({
      ...(await compiledEngine()),
      ...(dataDir === undefined ? {} : { dataDir }),
      ...(options.loadFrom === undefined ? {} : { loadDataDir: options.loadFrom }),
      ...(options.initdbArgs === undefined ? {} : { initDbStartParams: [...options.initdbArgs] }),
      extensions: { vector },
    });
    // A dump of a folder-backed database carries that folder's lock file; unpacking it replaced ours.
    if (options.loadFrom !== undefined) await lock?.reassert();
    // One session for the life of the database: set once, it holds for every search and statement.
    await created.exec(`${knnSessionSetup(knn)}; ${CUSTOM_PLANS_SETUP}`);
  } catch (error) {
    await created?.close().catch(() => undefined);
    await lock?.release();
    throw error;
  }
  const pglite = created;
  const statements = options.cachedStatements === false ? undefined : new PgliteStatements(pglite);
  let closing: Promise<void> | undefined;
  return {
    driver: 'pglite',
    knn,
    pglite,
    query<Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
      if (statements === undefined || !hasParams(params)) return runQuery<Row>(pglite, sql, params, statements);
      return autocommitStatement<Row>(pglite, statements, sql, params);
    },
    transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      return pglite.transaction(async (tx) => {
        let open = true;
        try {
          return await fn({
            query: <Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> => {
              if (statements === undefined || !hasParams(params)) return runQuery<Row>(tx, sql, params, statements);
              if (!open) return Promise.reject(new Error('Transaction is closed'));
              // The transaction lock is ours already: only the query lock, as PGlite's tx.query takes it.
              return pglite._runExclusiveQuery(async () => toQueryResult<Row>(await statements.run(sql, params)));
            },
          });
        } finally {
          open = false;
        }
      });
    },
    poolStats(): PoolStats {
      return PGLITE_POOL_STATS;
    },
    close(): Promise<void> {
      closing ??= (async (): Promise<void> => {
        try {
          if (!pglite.closed) await pglite.close();
        } finally {
          await lock?.release();
        }
      })();
      return closing;
    },
  };
}

// PGlite's own option types: the ES2023 lib has no WebAssembly namespace (the build compiles src/ alone).
type CompiledEngine = Pick<PGliteOptions, 'pgliteWasmModule' | 'fsBundle'>;
type WasmModule = NonNullable<PGliteOptions['pgliteWasmModule']>;

let engine: Promise<CompiledEngine> | undefined;

/**
 * PGlite compiles its WebAssembly and reads its file bundle on every start; doing it once per
 * process makes each further open (test databases, clones) about a quarter faster.
 */
function compiledEngine(): Promise<CompiledEngine> {
  engine ??= (async (): Promise<CompiledEngine> => {
    try {
      const dist = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
      const [wasm, bundle] = await Promise.all([readFile(join(dist, 'pglite.wasm')), readFile(join(dist, 'pglite.data'))]);
      return { pgliteWasmModule: await wasmRuntime().compile(wasm), fsBundle: new Blob([bundle]) };
    } catch {
      // A layout PGlite does not ship with: let PGlite load its own files.
      return {};
    }
  })();
  return engine;
}

// The ES2023 lib does not type the WebAssembly global; the runtime global is always there in Node.
function wasmRuntime(): { compile(bytes: Uint8Array): Promise<WasmModule> } {
  return (globalThis as unknown as { WebAssembly: { compile(bytes: Uint8Array): Promise<WasmModule> } }).WebAssembly;
}

function hasParams(params: readonly unknown[] | undefined): params is readonly unknown[] {
  return params !== undefined && params.length > 0;
}

/**
 * Without parameters a statement goes through the simple protocol (`exec`), as `pg` does, so
 * multi-statement SQL (migrations) works on both drivers; the last statement's result is returned.
 * Such a statement may be DDL, so the cached statements are closed after it.
 */
async function runQuery<Row>(runner: PgliteRunner, sql: string, params: readonly unknown[] | undefined, statements: PgliteStatements | undefined): Promise<QueryResult<Row>> {
  if (!hasParams(params)) {
    try {
      const results = await runner.exec(sql);
      const last = results[results.length - 1];
      return last === undefined ? { rows: [], rowCount: 0 } : toQueryResult<Row>(last);
    } finally {
      statements?.forgetAll();
    }
  }
  // PGlite's own query binds a vector's text form only.
  const texts = params.map((value) => (isVectorParam(value) ? toVectorText(vectorParamValues(value)) : value));
  return toQueryResult<Row>(await runner.query<Row>(sql, texts));
}

/** A statement outside any transaction: it waits for an open one to end, and syncs the files after, as PGlite's `query` does. */
async function autocommitStatement<Row>(pglite: PGlite, statements: PgliteStatements, sql: string, params: readonly unknown[]): Promise<QueryResult<Row>> {
  await pglite._checkReady();
  return pglite._runExclusiveTransaction(() =>
    pglite._runExclusiveQuery(async () => {
      const result = await statements.run(sql, params);
      await pglite.syncToFs();
      return toQueryResult<Row>(result);
    }),
  );
}

function toQueryResult<Row>(result: Results<unknown> | undefined): QueryResult<Row> {
  if (result === undefined) return { rows: [], rowCount: 0 };
  const rows = result.rows as Row[];
  return { rows, rowCount: result.rowCount ?? result.affectedRows ?? rows.length };
}
