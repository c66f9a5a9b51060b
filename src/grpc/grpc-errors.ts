/**
 * The one mapping from anything a gRPC call throws to its status: HyphaeErrors keep their stable
 * code in a hyphae.v1.ErrorDetail (and the `x-hyphae-error-code` trailer, for tools that do not
 * decode details); anything else is INTERNAL with a message that never carries SQL or a stack.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import type { JsonObject } from '@bufbuild/protobuf';
import { HyphaeError, InvalidArgumentError, isHyphaeError, type ErrorCode } from '../core/errors.js';
import { ErrorDetailSchema } from './gen/hyphae/v1/errors_pb.js';

export const ERROR_CODE_TRAILER = 'x-hyphae-error-code';

/** Hyphae code → gRPC status, following google.rpc.Code's HTTP mapping (409 → ABORTED, 429 → RESOURCE_EXHAUSTED). */
export const GRPC_STATUS_OF: Readonly<Record<ErrorCode, Code>> = {
  INVALID_ARGUMENT: Code.InvalidArgument,
  UNAUTHENTICATED: Code.Unauthenticated,
  FORBIDDEN: Code.PermissionDenied,
  NOT_FOUND: Code.NotFound,
  CONFLICT: Code.Aborted,
  // A field over its byte limit is bad input: retrying the same request cannot succeed.
  TOO_LARGE: Code.InvalidArgument,
  RATE_LIMITED: Code.ResourceExhausted,
  UNAVAILABLE: Code.Unavailable,
  INTERNAL: Code.Internal,
};

function issuesOf(error: HyphaeError): { path: string; message: string }[] {
  return error instanceof InvalidArgumentError ? error.issues.map((issue) => ({ path: issue.path, message: issue.message })) : [];
}

function detailsWithoutIssues(error: HyphaeError): JsonObject {
  const { issues: _issues, ...rest } = error.details ?? {};
  return JSON.parse(JSON.stringify(rest)) as JsonObject;
}

export function hyphaeConnectError(error: HyphaeError): ConnectError {
  const safe = error.code === 'INTERNAL' ? new HyphaeError('INTERNAL', 'internal error') : error;
  return new ConnectError(safe.message, GRPC_STATUS_OF[safe.code], { [ERROR_CODE_TRAILER]: safe.code }, [
    { desc: ErrorDetailSchema, value: { code: safe.code, issues: issuesOf(safe), details: detailsWithoutIssues(safe) } },
  ], error);
}

/** True when the error is the server's fault and deserves an error-level log line. */
export function isServerFault(error: unknown): boolean {
  if (isHyphaeError(error)) return error.code === 'INTERNAL';
  return !(error instanceof ConnectError);
}

export function toConnectError(error: unknown): ConnectError {
  if (isHyphaeError(error)) return hyphaeConnectError(error);
  // Connect's own errors (undecodable message, deadline, cancellation, size limit) are already statuses.
  if (error instanceof ConnectError) return error;
  return hyphaeConnectError(new HyphaeError('INTERNAL', 'internal error', { cause: error }));
}
