import pg from 'pg';
import type { PoolClient, QueryResult as PgQueryResult } from 'pg';
import { DatabaseUnavailableError, sqlStateOf } from './errors.js';
import type { Db, PoolStats, QueryResult, Queryable, TransactionOptions } from './db.js';
import { knnSessionSetup, knnSettings, type KnnSettings } from './knn-session.js';
import { asUnavailable, refusedPreparedStatement, STATEMENT_TIMEOUT } from './pg-failures.js';
import { StatementNames } from './pg-statement-names.js';

export interface PgDbOptions {
  /** A PostgreSQL connection URL (HYPHAE_DATABASE_URL). */
  readonly url: string;
  /** Pool size; default 10. */
  readonly max?: number;
  /**
   * How long a caller waits for a connection — the server restarting, unreachable, or every pooled
   * connection busy — before the call fails with UNAVAILABLE; default 5000 ms.
   */
  readonly acquireTimeoutMs?: number;
  /**
   * The server's statement_timeout for every session (0: none); default 30000 ms. The client gives a
   * statement that long plus a grace period (5 s, at most the timeout again) to answer, then drops the
   * connection as dead (a frozen server or a silent network), so nothing holds a caller forever.
   */
  readonly statementTimeoutMs?: number;
  /** Errors of connections dropped outside a query (server restart, network drop); they never crash the process. */
  readonly onIdleError?: (error: Error) => void;
  /** HNSW scan settings of every session (src/store/knn-session.ts); defaults KNN_DEFAULTS. */
  readonly knn?: Partial<KnnSettings>;
  /**
   * How many distinct statement texts run as named prepared statements (0: none); default 256.
   * A parameterised statement sent outside a transaction is parsed once per connection and then
   * only bound and executed: the server skips parsing, analysis and rewriting on every later call.
   * Each session plans every execution afresh (plan_cache_mode force_custom_plan), so the plans are
   * those of an unnamed statement. Texts past the limit are sent unnamed.
   */
  readonly preparedStatements?: number;
}

const PG_POOL_DEFAULTS = { max: 10, acquireTimeoutMs: 5_000, statementTimeoutMs: 30_000, preparedStatements: 256 } as const;

/** A session idle inside an open transaction this long is ended by the server, releasing its locks. */
const IDLE_IN_TRANSACTION_TIMEOUT_MS = 60_000;
/** How much longer than the statement timeout (at most twice as long) the client waits for the server's answer. */
const ANSWER_GRACE_MS = 5_000;
const FIRST_RETRY_PAUSE_MS = 25;
const MAX_RETRY_PAUSE_MS = 500;
const INT8_OID = 20;
/** Plain statements that change nothing, so running one again after a lost connection is safe (none of ours calls a writing function). */
const READ_ONLY = /^\s*(SELECT|SHOW)\b/i;

/** Opens a `pg` Pool and checks that the server answers (waiting up to the acquire timeout for it). */
export async function openPgDb(options: PgDbOptions): Promise<Db> {
  const acquireTimeoutMs = options.acquireTimeoutMs ?? PG_POOL_DEFAULTS.acquireTimeoutMs;
  const statementTimeoutMs = options.statementTimeoutMs ?? PG_POOL_DEFAULTS.statementTimeoutMs;
  const knn = knnSettings(options.knn);
  const knnSetup = knnSessionSetup(knn);
  const statementNames = new StatementNames(options.preparedStatements ?? PG_POOL_DEFAULTS.preparedStatements);
  // A prepared statement keeps its per-call custom plan: the same plans as unnamed statements get.
  const sessionSetup = `${knnSetup}, set_config('plan_cache_mode', 'force_custom_plan', false)`;
  const max = options.max ?? PG_POOL_DEFAULTS.max;
  let acquireTimeouts = 0;
  const pool = new pg.Pool({
    connectionString: options.url,
    max,
    // Bounds one connect attempt (a SYN nobody answers) and a wait for a busy pool's next free client.
    connectionTimeoutMillis: acquireTimeoutMs,
    idle_in_transaction_session_timeout: IDLE_IN_TRANSACTION_TIMEOUT_MS,
    ...(statementTimeoutMs > 0 ? { statement_timeout: statementTimeoutMs } : {}),
    types: { getTypeParser: sameTypesAsPglite },
    // Once per connection, so a kNN search is one statement instead of a four-statement transaction.
    onConnect: async (client: pg.ClientBase): Promise<void> => {
      // query_timeout is honoured by pg but missing from its QueryConfig type.
      const setup = { text: sessionSetup, query_timeout: acquireTimeoutMs };
      await client.query(setup);
    },
  });
  pool.on('error', (error) => options.onIdleError?.(error));

  const acquire = async (deadline: number): Promise<PoolClient> => {
    let pause = FIRST_RETRY_PAUSE_MS;
    for (;;) {
      try {
        return await connectBefore(pool, deadline);
      } catch (error) {
        const failure = asUnavailable(error);
        // Only a server that cannot be reached (or is starting up) is waited for; a refused login is not.
        if (!(failure instanceof DatabaseUnavailableError)) throw failure;
        if (Date.now() + pause >= deadline) {
          acquireTimeouts += 1;
          throw new DatabaseUnavailableError(`database unavailable: no connection within ${acquireTimeoutMs} ms`, {
            cause: failure.cause ?? failure,
            retryAfterSeconds: 1,
          });
        }
        await sleep(pause);
        pause = Math.min(pause * 2, MAX_RETRY_PAUSE_MS);
      }
    }
  };

  /**
   * Runs fn on one checked-out connection; one that failed at the connection level is discarded.
   * A pooled connection the server dropped (restart, crash) is only found out by using it: when the
   * first statement finds it lost and `firstStatementRetrySafe` (BEGIN, a read), fn runs again on
   * another connection, waiting for the server up to the same acquire deadline.
   */
  const withClient = async <T>(fn: (run: ClientRunner) => Promise<T>, firstStatementRetrySafe: boolean): Promise<T> => {
    const deadline = Date.now() + acquireTimeoutMs;
    for (;;) {
      const client = await acquire(deadline);
      let broken: Error | undefined;
      let statements = 0;
      let lostOnFirstStatement = false;
      // A checked-out connection that drops between statements emits 'error'; unheard, it would crash the process.
      const onClientError = (error: Error): void => {
        broken = error;
        options.onIdleError?.(error);
      };
      client.on('error', onClientError);
      let retryFresh = false;
      const run: ClientRunner = async (sql, params, answerWithinMs, prepare = false) => {
        const index = statements++;
        if (broken !== undefined) {
          lostOnFirstStatement = index === 0;
          throw new DatabaseUnavailableError('database unavailable: the connection was lost', { cause: broken, retryAfterSeconds: 1 });
        }
        const name = prepare && params !== undefined && params.length > 0 ? statementNames.nameOf(sql) : undefined;
        try {
          return await client.query({
            text: sql,
            ...(name === undefined ? {} : { name }),
            ...(params === undefined ? {} : { values: [...params] }),
            ...(answerWithinMs > 0 ? { query_timeout: answerWithinMs } : {}),
          });
        } catch (error) {
          const refused = name === undefined ? undefined : refusedPreparedStatement(error);
          if (refused !== undefined) {
            // Nothing ran: the statement failed at parse or bind. A fresh connection parses it anew, or sends it unnamed.
            if (refused === 'shared-session') statementNames.disable();
            broken = error as Error;
            retryFresh = true;
            throw error;
          }
          if (error instanceof Error && error.message === 'Query read timeout') {
            // pg leaves the unanswered statement on the connection: it can never be used again.
            broken = new DatabaseUnavailableError(`database unavailable: no answer within ${answerWithinMs} ms`, { cause: error, retryAfterSeconds: 1 });
            throw broken;
          }
          const failure = asUnavailable(error);
          // A statement timeout leaves a healthy session behind; any other connection-level failure does not.
          if (failure instanceof DatabaseUnavailableError && sqlStateOf(error) !== STATEMENT_TIMEOUT) {
            broken ??= failure;
            lostOnFirstStatement = index === 0;
          }
          throw failure;
        }
      };
      try {
        return await fn(run);
      } catch (error) {
        if (!((retryFresh || (firstStatementRetrySafe && lostOnFirstStatement)) && Date.now() < deadline)) throw error;
      } finally {
        client.off('error', onClientError);
        client.release(broken);
      }
    }
  };

  const answerWithin = (timeoutMs: number): number => (timeoutMs > 0 ? timeoutMs + Math.min(ANSWER_GRACE_MS, timeoutMs) : 0);
  try {
    await withClient((run) => run('SELECT 1', undefined, answerWithin(statementTimeoutMs)), true);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw error;
  }
  let closing: Promise<void> | undefined;
  return {
    driver: 'pg',
    knn,
    async query<Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> {
      return toQueryResult<Row>(await withClient((run) => run(sql, params, answerWithin(statementTimeoutMs), true), READ_ONLY.test(sql)));
    },
    async transaction<T>(fn: (tx: Queryable) => Promise<T>, transactionOptions: TransactionOptions = {}): Promise<T> {
      const timeoutMs = transactionOptions.statementTimeoutMs ?? statementTimeoutMs;
      const within = answerWithin(timeoutMs);
      return withClient(async (run) => {
        await run('BEGIN', undefined, within);
        try {
          if (timeoutMs !== statementTimeoutMs) await run(`SET LOCAL statement_timeout = ${Math.max(0, Math.floor(timeoutMs))}`, undefined, within);
          const tx: Queryable = {
            query: async <Row>(sql: string, params?: readonly unknown[]): Promise<QueryResult<Row>> =>
              toQueryResult<Row>(await run(sql, params, within, transactionOptions.preparedStatements === true)),
          };
          const result = await fn(tx);
          await run('COMMIT', undefined, within);
          return result;
        } catch (error) {
          // On a lost connection this fails at once; withClient then discards it rather than pooling it.
          await run('ROLLBACK', undefined, within).catch(() => undefined);
          throw error;
        }
      }, true);
    },
    poolStats(): PoolStats {
      return { total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, max, acquireTimeouts };
    },
    close(): Promise<void> {
      closing ??= pool.end();
      return closing;
    },
  };
}

/** `prepare`: send a parameterised statement as a named prepared statement (outside transactions, or inside one that asked: a refused one runs the call again on a fresh connection). */
type ClientRunner = (sql: string, params: readonly unknown[] | undefined, answerWithinMs: number, prepare?: boolean) => Promise<PgQueryResult | PgQueryResult[]>;

/** pool.connect(), given up on at the deadline; a connection that arrives later goes straight back. */
async function connectBefore(pool: pg.Pool, deadline: number): Promise<PoolClient> {
  // An idle connection nobody else waits for is handed over on the next tick: no deadline to race (a timer and two promises a statement).
  if (pool.idleCount > 0 && pool.waitingCount === 0) return pool.connect();
  const pending = pool.connect();
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error('timeout exceeded when trying to connect')), Math.max(0, deadline - Date.now()));
  });
  try {
    return await Promise.race([pending, late]);
  } catch (error) {
    pending.then((client) => client.release(), () => undefined);
    throw error;
  } finally {
    clearTimeout(timer);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
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
