/** How the pg driver tells a database it cannot reach from an error of the statement itself. */
import pg from 'pg';
import { isHyphaeError } from '../core/errors.js';
import { DatabaseUnavailableError, sqlStateOf } from './errors.js';

/**
 * Why the server refused a named statement before running it: `stale`, a schema change altered its
 * result columns (0A000); `shared-session`, the server's sessions are not the pool's connections (a
 * statement already prepared, 42P05, or gone, 26000: a transaction-mode pooler, PGlite over the
 * wire), where preparing cannot work. Undefined for any other error.
 */
export function refusedPreparedStatement(error: unknown): 'stale' | 'shared-session' | undefined {
  const state = sqlStateOf(error);
  if (state === '42P05' || state === '26000') return 'shared-session';
  return state === '0A000' && error instanceof Error && /cached plan must not change result type/.test(error.message) ? 'stale' : undefined;
}

const NETWORK_ERRNOS = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
const POOL_FAILURE = /Connection terminated|timeout exceeded when trying to connect|connection error|not queryable|Cannot use a pool after calling end/i;
export const STATEMENT_TIMEOUT = '57014';
/** A write refused because the server is a standby: a primary demoted under a pooled connection, or reached through a stale DNS answer during a failover. */
const READ_ONLY_SERVER = '25006';
/** Connection exceptions (08…), too many connections, shutdown / crash / starting up, a read-only (standby) server, and a statement timeout. */
const UNAVAILABLE_STATES = new Set(['53300', '57P01', '57P02', '57P03', READ_ONLY_SERVER, STATEMENT_TIMEOUT]);

/** Connection-level failures become DatabaseUnavailableError; SQL errors and our own errors pass through. */
export function asUnavailable(error: unknown): unknown {
  if (!(error instanceof Error) || isHyphaeError(error)) return error;
  const state = sqlStateOf(error);
  const errno = (error as NodeJS.ErrnoException).code;
  const connectionFailure =
    state === undefined
      ? (errno !== undefined && NETWORK_ERRNOS.has(errno)) || (!(error instanceof pg.DatabaseError) && POOL_FAILURE.test(error.message))
      : state.startsWith('08') || UNAVAILABLE_STATES.has(state);
  if (!connectionFailure) return error;
  const what = state === STATEMENT_TIMEOUT ? 'a statement ran past its timeout' : 'database unavailable';
  return new DatabaseUnavailableError(`${what}: ${error.message}`, { cause: error, retryAfterSeconds: 1 });
}
