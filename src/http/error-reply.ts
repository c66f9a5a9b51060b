/**
 * The one mapping from anything thrown to the REST error shape `{error:{code, message, details?}}`.
 * HyphaeErrors keep their code and status (ERROR_SPECS); fastify's own client errors (bad JSON,
 * body too large, wrong media type) become INVALID_ARGUMENT or TOO_LARGE; everything else is a
 * 500 `internal error` whose message, stack and SQL never reach the client.
 */
import { z } from 'zod';
import { ERROR_SPECS, HyphaeError, RateLimitedError, UnavailableError, isHyphaeError, type ErrorCode } from '../core/errors.js';

export const ERROR_CODES = Object.keys(ERROR_SPECS) as [ErrorCode, ...ErrorCode[]];

export const errorBodySchema = z
  .strictObject({
    error: z.strictObject({
      code: z.enum(ERROR_CODES),
      message: z.string(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
  })
  .describe('An error');

export type ErrorBody = z.output<typeof errorBodySchema>;

export interface ErrorReply {
  readonly status: number;
  readonly body: ErrorBody;
  readonly headers: Readonly<Record<string, string>>;
  /** True when the error is the server's fault and deserves an error-level log line. */
  readonly serverFault: boolean;
}

interface FrameworkError {
  readonly code?: unknown;
  readonly statusCode?: unknown;
}

function isFrameworkClientError(error: unknown): error is Error & FrameworkError & { statusCode: number } {
  if (!(error instanceof Error)) return false;
  const { code, statusCode } = error as FrameworkError;
  return typeof code === 'string' && code.startsWith('FST_') && typeof statusCode === 'number' && statusCode >= 400 && statusCode < 500;
}

export function hyphaeErrorBody(error: HyphaeError): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      ...(error.details === undefined ? {} : { details: error.details }),
    },
  };
}

export function toErrorReply(error: unknown): ErrorReply {
  if (isHyphaeError(error)) {
    const retryAfterSeconds = error instanceof RateLimitedError || error instanceof UnavailableError ? error.retryAfterSeconds : undefined;
    const headers: Record<string, string> = retryAfterSeconds === undefined ? {} : { 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) };
    const status = ERROR_SPECS[error.code].httpStatus;
    const safe = error.code === 'INTERNAL' ? new HyphaeError('INTERNAL', 'internal error') : error;
    return { status, body: hyphaeErrorBody(safe), headers, serverFault: status >= 500 };
  }
  if (isFrameworkClientError(error)) {
    const code: ErrorCode = error.statusCode === 413 ? 'TOO_LARGE' : 'INVALID_ARGUMENT';
    return {
      status: ERROR_SPECS[code].httpStatus,
      body: { error: { code, message: error.message } },
      headers: {},
      serverFault: false,
    };
  }
  return {
    status: 500,
    body: { error: { code: 'INTERNAL', message: 'internal error' } },
    headers: {},
    serverFault: true,
  };
}
