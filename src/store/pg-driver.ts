import pg from 'pg';
import type { PoolClient, QueryResult as PgQueryResult } from 'pg';
import { isHyphaeError } from '../core/errors.js';
import { DatabaseUnavailableError, sqlStateOf } from './errors.js';
import type { Db, PoolStats, QueryResult, Queryable } from './db.js';

export interface PgDbOptions {
  /** A PostgreSQL connection URL (HYPHAE_DATABASE_URL). */
  readonly url: string;
  /** Pool size; default 10. */
  readonly max?: number;
  /** Errors of connections dropped outside a query (server restart, network drop); they never crash the process. */
  readonly onIdleError?: (error: Error) => void;
}

const INT8_OID = 20;

/** Opens a `pg` Pool and checks that the server answers. */
export async function openPgDb(options: PgDbOptions): Promise<Db> {
  const pool = new pg.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    types: { getTypeParser: sameTypesAsPglite },
  });
  pool.on('error', (error) => options.onIdleError?.(error));
  try {
    await pool.query('SELECT 1');
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw asUnavailable(error);
  }
  let closing: Promise<void> | undefined;
  return {
    driver: 'pg',
    async query<Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
      try {
        return toQueryResult<Row>(await pool.query(sql, params === undefined ? undefined : [...params]));
      } catch (error) {
        throw asUnavailable(error);
      }
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      let client: PoolClient;
      try {
        client = await pool.connect();
      } catch (error) {
        throw asUnavailable(error);
      }
      let broken: Error | undefined;
      // A checked-out connection that drops between statements emits 'error'; unheard, it would crash the process.
      const onClientError = (error: Error): void => {
        broken = error;
        options.onIdleError?.(error);
      };
      client.on('error', onClientError);
      try {
        await client.query('BEGIN');
        const tx: Queryable = {
          query: async <Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> =>
            toQueryResult<Row>(await client.query(sql, params === undefined ? undefined : [...params])),
        };
        const result = await fn(tx);
        await client.query('COMMIT');
        return result;
      } catch (error) {
        try {
          await client.query('ROLLBACK');
        } catch (rollbackError) {
          // A connection that cannot roll back is discarded rather than returned to the pool.
          broken = rollbackError instanceof Error ? rollbackError : new Error(String(rollbackError));
        }
        throw asUnavailable(error);
      } finally {
        client.off('error', onClientError);
        client.release(broken);
      }
    },
    poolStats(): PoolStats {
      return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount };
    },
    close(): Promise<void> {
      closing ??= pool.end();
      return closing;
    },
  };
}

/** int8 (counts, seqs) as a JS number, as PGlite returns it, so rows look the same on both drivers. */
function sameTypesAsPglite(oid: number, format?: string): (value: string) => unknown {
  if (oid === INT8_OID) return Number;
  return format === 'binary' ? pg.types.getTypeParser(oid, 'binary') : pg.types.getTypeParser(oid, 'text');
}

function toQueryResult<Row>(result: PgQueryResult | PgQueryResult[]): QueryResult<Row> {
  // A multi-statement text query answers with one result per statement; keep the last, as PGlite does.
  const last = Array.isArray(result) ? result[result.length - 1] : result;
  if (last === undefined) return { rows: [], rowCount: 0 };
  const rows = last.rows as Row[];
  return { rows, rowCount: last.rowCount ?? rows.length };
}

const NETWORK_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
const POOL_FAILURE = /Connection terminated|timeout exceeded when trying to connect|connection error/i;

/** Connection-level failures become DatabaseUnavailableError; SQL errors and our own errors pass through. */
function asUnavailable(error: unknown): unknown {
  if (!(error instanceof Error) || isHyphaeError(error)) return error;
  const state = sqlStateOf(error);
  const errno = (error as NodeJS.ErrnoException).code;
  const connectionFailure =
    state === undefined
      ? (errno !== undefined && NETWORK_ERRNOS.has(errno)) || (!(error instanceof pg.DatabaseError) && POOL_FAILURE.test(error.message))
      : state.startsWith('08') || state === '57P01' || state === '57P02' || state === '57P03';
  if (!connectionFailure) return error;
  return new DatabaseUnavailableError(`database unavailable: ${error.message}`, { cause: error });
}
