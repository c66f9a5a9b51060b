/**
 * The one database interface. Two drivers implement it: PGlite on a data folder (embedded) and a
 * `pg` Pool (HYPHAE_DATABASE_URL). Every query of the product is written once against it, in
 * PostgreSQL SQL with $n parameters; vectors are bound in pgvector's binary form (vector-param.ts)
 * and read back as its text form (vector-text.ts).
 */
import type { KnnSettings } from './knn-session.js';

export interface QueryResult<Row> {
  readonly rows: Row[];
  readonly rowCount: number;
}

export interface Queryable {
  query<Row = Record<string, unknown>>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>>;
}

export type DbDriverName = 'pglite' | 'pg';

export interface PoolStats {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
  /** The most connections the pool opens. */
  readonly max: number;
  /** Calls that gave up waiting for a connection (failed UNAVAILABLE) since the pool opened. */
  readonly acquireTimeouts: number;
}

export interface TransactionOptions {
  /**
   * This transaction's statement timeout in ms instead of the pool's; 0 lifts it, for the
   * statements that may rightly run long (migrations, HNSW index rebuilds). PGlite sets none.
   */
  readonly statementTimeoutMs?: number;
  /**
   * pg driver: this transaction's parameterised statements run as named prepared statements, as
   * `db.query`'s do — parsed once per connection, and planned once when the transaction sets
   * plan_cache_mode to force_generic_plan. A statement the server refuses at parse or bind runs the
   * whole of fn again on a fresh connection, so fn must do nothing outside the database. PGlite
   * prepares every statement already.
   */
  readonly preparedStatements?: boolean;
}

export interface Db extends Queryable {
  readonly driver: DbDriverName;
  /** The HNSW scan settings every session of this database carries (src/store/knn-session.ts). */
  readonly knn: KnnSettings;
  /** Runs fn in one transaction on one connection; commits when fn resolves, rolls back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  poolStats(): PoolStats;
  close(): Promise<void>;
}
