/**
 * The one registry of application errors. Every error the memory facade raises is a
 * `HyphaeError` with a stable string `code`; each surface maps the code to its own wire form
 * (HTTP status for REST, a JSON-RPC code in -32000…-32019 for MCP) from this table alone.
 */
export type ErrorCode =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'TOO_LARGE'
  | 'RATE_LIMITED'
  | 'UNAVAILABLE'
  | 'INTERNAL';

export interface ErrorSpec {
  readonly httpStatus: number;
  readonly rpcCode: number;
}

export const ERROR_SPECS: Readonly<Record<ErrorCode, ErrorSpec>> = {
  INVALID_ARGUMENT: { httpStatus: 400, rpcCode: -32000 },
  UNAUTHENTICATED: { httpStatus: 401, rpcCode: -32001 },
  FORBIDDEN: { httpStatus: 403, rpcCode: -32002 },
  NOT_FOUND: { httpStatus: 404, rpcCode: -32003 },
  CONFLICT: { httpStatus: 409, rpcCode: -32004 },
  TOO_LARGE: { httpStatus: 413, rpcCode: -32005 },
  RATE_LIMITED: { httpStatus: 429, rpcCode: -32006 },
  UNAVAILABLE: { httpStatus: 503, rpcCode: -32007 },
  INTERNAL: { httpStatus: 500, rpcCode: -32008 },
};

/** One problem with one field of a request; `path` is the JSON path of the field. */
export interface FieldIssue {
  readonly path: string;
  readonly message: string;
}

export interface HyphaeErrorOptions {
  readonly details?: Record<string, unknown>;
  readonly cause?: unknown;
}

export class HyphaeError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: HyphaeErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details;
  }
}

export class InvalidArgumentError extends HyphaeError {
  readonly issues: readonly FieldIssue[];
  constructor(message: string, issues: readonly FieldIssue[] = [], options: HyphaeErrorOptions = {}) {
    super('INVALID_ARGUMENT', message, { ...options, details: { ...options.details, issues } });
    this.issues = issues;
  }
}

export class UnauthenticatedError extends HyphaeError {
  constructor(message = 'missing or invalid API key', options: HyphaeErrorOptions = {}) {
    super('UNAUTHENTICATED', message, options);
  }
}

export class ForbiddenError extends HyphaeError {
  constructor(message: string, options: HyphaeErrorOptions = {}) {
    super('FORBIDDEN', message, options);
  }
}

export class NotFoundError extends HyphaeError {
  constructor(kind: string, id: string, options: HyphaeErrorOptions = {}) {
    super('NOT_FOUND', `${kind} ${id} not found`, { ...options, details: { ...options.details, kind, id } });
  }
}

export class ConflictError extends HyphaeError {
  constructor(message: string, options: HyphaeErrorOptions = {}) {
    super('CONFLICT', message, options);
  }
}

export class TooLargeError extends HyphaeError {
  constructor(field: string, limitBytes: number, actualBytes: number, options: HyphaeErrorOptions = {}) {
    super('TOO_LARGE', `${field} is ${actualBytes} bytes; the limit is ${limitBytes} bytes`, {
      ...options,
      details: { ...options.details, field, limit_bytes: limitBytes, actual_bytes: actualBytes },
    });
  }
}

export class RateLimitedError extends HyphaeError {
  readonly retryAfterSeconds: number;
  constructor(retryAfterSeconds: number, options: HyphaeErrorOptions = {}) {
    super('RATE_LIMITED', `rate limit exceeded; retry after ${retryAfterSeconds}s`, {
      ...options,
      details: { ...options.details, retry_after_seconds: retryAfterSeconds },
    });
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export interface UnavailableErrorOptions extends HyphaeErrorOptions {
  /** When a retry may succeed: sent as `Retry-After` (REST) and `retry_after_seconds` (details). */
  readonly retryAfterSeconds?: number;
}

export class UnavailableError extends HyphaeError {
  readonly retryAfterSeconds: number | undefined;
  constructor(message: string, options: UnavailableErrorOptions = {}) {
    const { retryAfterSeconds, ...rest } = options;
    super(
      'UNAVAILABLE',
      message,
      retryAfterSeconds === undefined ? rest : { ...rest, details: { ...rest.details, retry_after_seconds: retryAfterSeconds } },
    );
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

export function isHyphaeError(value: unknown): value is HyphaeError {
  return value instanceof HyphaeError;
}

/** Wraps anything thrown into a HyphaeError without leaking its message (it may hold SQL). */
export function toHyphaeError(value: unknown): HyphaeError {
  if (value instanceof HyphaeError) return value;
  return new HyphaeError('INTERNAL', 'internal error', { cause: value });
}
