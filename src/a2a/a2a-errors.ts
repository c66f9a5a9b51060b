/**
 * Facade errors on the A2A JSON-RPC binding. A2A reserves -32001…-32009 for its own task errors,
 * so Hyphae's stable codes travel as codes of their own (-32040…) with the stable name in a
 * google.rpc.ErrorInfo detail (`reason`), as A2A 1.0 carries error details; bad input is the
 * standard -32602. Only failures a transport acts on change the HTTP status (401, 429, 503, 500);
 * every other error is an answer, sent with 200 as the A2A SDK does.
 */
import { ERROR_INFO_TYPE } from '@a2a-js/sdk/errors';
import type { ServerCallContext } from '@a2a-js/sdk/server';
import { InvalidArgumentError, RateLimitedError, isHyphaeError, toHyphaeError, type ErrorCode } from '../core/errors.js';

export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;

const A2A_RPC_CODES: Readonly<Record<ErrorCode, number>> = {
  INVALID_ARGUMENT: RPC_INVALID_PARAMS,
  TOO_LARGE: RPC_INVALID_PARAMS,
  UNAUTHENTICATED: -32040,
  FORBIDDEN: -32041,
  NOT_FOUND: -32042,
  CONFLICT: -32043,
  RATE_LIMITED: -32044,
  UNAVAILABLE: -32045,
  INTERNAL: RPC_INTERNAL_ERROR,
};

const TRANSPORT_STATUS: Partial<Readonly<Record<ErrorCode, number>>> = {
  UNAUTHENTICATED: 401,
  RATE_LIMITED: 429,
  UNAVAILABLE: 503,
  INTERNAL: 500,
};

export interface A2aRpcError {
  readonly code: number;
  readonly message: string;
  readonly data?: readonly Record<string, unknown>[];
}

export interface A2aErrorReply {
  readonly status: number;
  readonly error: A2aRpcError;
  readonly retryAfterSeconds?: number;
}

export const ERROR_DOMAIN = 'hyphae';
const BAD_REQUEST_TYPE = 'type.googleapis.com/google.rpc.BadRequest';

/** A facade error as an A2A JSON-RPC error; INTERNAL says nothing of its cause. */
export function facadeErrorReply(thrown: unknown): A2aErrorReply {
  const error = toHyphaeError(thrown);
  const message = error.code === 'INTERNAL' ? 'internal error' : error.message;
  const data: Record<string, unknown>[] = [{ '@type': ERROR_INFO_TYPE, reason: error.code, domain: ERROR_DOMAIN }];
  if (error instanceof InvalidArgumentError && error.issues.length > 0) {
    data.push({ '@type': BAD_REQUEST_TYPE, fieldViolations: error.issues.map((issue) => ({ field: issue.path, description: issue.message })) });
  }
  return {
    status: TRANSPORT_STATUS[error.code] ?? 200,
    error: { code: A2A_RPC_CODES[error.code], message, data },
    ...(error instanceof RateLimitedError ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
  };
}

const FACADE_ERROR = 'hyphae.facadeError';

/**
 * The SDK's transport turns any error it does not know into -32603: a facade error is recorded on
 * the call's context before it is rethrown, and the route answers with its own mapping instead.
 */
export function recordFacadeError(context: ServerCallContext, thrown: unknown): unknown {
  if (isHyphaeError(thrown)) context.state.set(FACADE_ERROR, thrown);
  return thrown;
}

export function recordedFacadeError(context: ServerCallContext): unknown {
  return context.state.get(FACADE_ERROR);
}
