/** Maps application and schema failures to their MCP wire forms, never leaking internals. */
import type { z } from 'zod';
import { ERROR_SPECS, toHyphaeError } from '../../core/errors.js';
import type { FieldIssue } from '../../core/errors.js';
import { describeLoggableError } from '../../core/loggable-error.js';
import type { JsonObject, JsonRpcErrorObject } from './json-rpc.js';
import { PreparedJson, RPC_INVALID_PARAMS } from './json-rpc.js';

/** A facade error as a JSON-RPC error object: code from the error table, `data.code` the stable name. */
export function toRpcError(thrown: unknown): JsonRpcErrorObject {
  const error = toHyphaeError(thrown);
  const rpcCode = ERROR_SPECS[error.code].rpcCode;
  // An INTERNAL error's message and details may hold SQL or a driver message: say nothing.
  if (error.code === 'INTERNAL') return { code: rpcCode, message: 'internal error', data: { code: 'INTERNAL' } };
  return { code: rpcCode, message: error.message, data: { ...error.details, code: error.code } };
}

/** A method's own refusal, already a JSON-RPC error object (invalid params, resource not found). */
export class RpcMethodError extends Error {
  constructor(readonly rpcError: JsonRpcErrorObject) {
    super(rpcError.message);
    this.name = 'RpcMethodError';
  }
}

/** A method's refusal of its params (`Invalid params: …`, -32602). */
export function invalidParams(message: string): RpcMethodError {
  return new RpcMethodError({ code: RPC_INVALID_PARAMS, message: `Invalid params: ${message}` });
}

/** MCP's code for an unknown resource (2024-11-05 through 2025-11-25; the stateless revision never sends it). */
export const RPC_RESOURCE_NOT_FOUND = -32002;

const MAX_ECHOED_NAME = 64;

/** A name from the request (a method, a tool) clipped before a message echoes it. */
export function clipName(text: string): string {
  return text.length > MAX_ECHOED_NAME ? `${text.slice(0, MAX_ECHOED_NAME)}…` : text;
}

/** What a failed method answers: its own refusal as it is, anything else by the error table; an internal failure is logged, never sent. */
export function methodFailure(error: unknown, log: (message: string) => void, method: string): JsonRpcErrorObject {
  if (error instanceof RpcMethodError) return error.rpcError;
  const rpcError = toRpcError(error);
  if (rpcError.message === 'internal error') log(`${method} failed: ${describeLoggableError(error)}`);
  return rpcError;
}

function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? String(segment) : `.${String(segment)}`;
  }
  return out;
}

/** Zod issues as field issues; an unknown field becomes one issue naming that field. */
export function toFieldIssues(issues: readonly z.core.$ZodIssue[]): FieldIssue[] {
  const out: FieldIssue[] = [];
  for (const issue of issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({ path: formatPath([...issue.path, key]), message: 'unknown field; this tool does not accept it' });
      }
    } else {
      out.push({ path: formatPath(issue.path), message: issue.message });
    }
  }
  return out;
}

export function describeIssues(toolName: string, issues: readonly FieldIssue[]): string {
  const parts = issues.map((issue) => (issue.path === '' ? issue.message : `${issue.path}: ${issue.message}`));
  return `Invalid arguments for tool ${toolName}: ${parts.join('; ')}`;
}

/** Schema failure for revisions before 2025-11-25: a -32602 error with the issues in `data`. */
export function invalidArgumentsError(toolName: string, issues: readonly FieldIssue[]): JsonRpcErrorObject {
  return { code: RPC_INVALID_PARAMS, message: describeIssues(toolName, issues), data: { code: 'INVALID_ARGUMENT', issues } };
}

/** Schema failure for 2025-11-25: a tool result the model can read and correct itself from. */
export function invalidArgumentsResult(toolName: string, issues: readonly FieldIssue[]): JsonObject {
  const structured = JSON.stringify({ error: { code: 'INVALID_ARGUMENT', message: describeIssues(toolName, issues), issues } });
  return { content: [{ type: 'text', text: structured }], structuredContent: new PreparedJson(structured), isError: true };
}
