/**
 * The one redaction point for errors on their way to a log: what failed and where, never what
 * it was working on. A database driver's error carries the SQL, its parameters (tenant, agent,
 * content, metadata, the vector) and a message that may quote a value; none of it is kept. Kept:
 * the error's class, its stable code, the SQLSTATE, the message of our own errors (written
 * without content), the stack frames (without the message line) and the same for each cause.
 */
import { isHyphaeError } from './errors.js';

export interface LoggableError {
  readonly type: string;
  readonly code?: string;
  readonly sqlstate?: string;
  /** Ours as written; anyone else's is `[redacted]` (a driver's message may quote a value). */
  readonly message: string;
  readonly stack: string;
  readonly cause?: LoggableError;
}

const MAX_CAUSES = 4;
const SQLSTATE = /^[0-9A-Z]{5}$/;
const REDACTED = '[redacted]';

export function loggableError(error: unknown, depth = 0): LoggableError {
  if (!(error instanceof Error)) return { type: typeof error, message: REDACTED, stack: '' };
  const raw = error as Error & { code?: unknown };
  const frames = (error.stack ?? '')
    .split('\n')
    .filter((line) => line.startsWith('    at '))
    .join('\n');
  const code = isHyphaeError(error) ? error.code : typeof raw.code === 'string' && !SQLSTATE.test(raw.code) ? raw.code : undefined;
  const sqlstate = !isHyphaeError(error) && typeof raw.code === 'string' && SQLSTATE.test(raw.code) ? raw.code : undefined;
  return {
    type: error.name,
    ...(code === undefined ? {} : { code }),
    ...(sqlstate === undefined ? {} : { sqlstate }),
    message: isHyphaeError(error) ? error.message : REDACTED,
    stack: frames,
    ...(error.cause === undefined || depth >= MAX_CAUSES ? {} : { cause: loggableError(error.cause, depth + 1) }),
  };
}

/** One line for plain-text logs (stderr): the class, code and SQLSTATE of the error and its causes. */
export function describeLoggableError(error: unknown): string {
  const parts: string[] = [];
  for (let current: LoggableError | undefined = loggableError(error); current !== undefined; current = current.cause) {
    const tags = [current.code, current.sqlstate === undefined ? undefined : `SQLSTATE ${current.sqlstate}`].filter((t) => t !== undefined);
    parts.push(`${current.type}${tags.length > 0 ? ` [${tags.join(', ')}]` : ''}${current.message === REDACTED ? '' : `: ${current.message}`}`);
  }
  return parts.join(' <- ');
}
