/**
 * An answer refusing a call for a role the caller lacks, found in its JSON-RPC error
 * (`data.required_role`). To an OAuth caller it goes out as HTTP 403 with the scope challenge, so a
 * client can ask for that scope and retry (MCP authorization: scope challenges); a key's caller
 * keeps the plain answer.
 */
import { ForbiddenError } from '../../core/errors.js';
import { isPlainObject } from '../protocol/json-rpc.js';

export function roleRefusalIn(body: string): ForbiddenError | undefined {
  // Cheap first: almost every answer lacks the marker, and only those with it are parsed again.
  if (!body.includes('"required_role"')) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const error = isPlainObject(parsed) && isPlainObject(parsed.error) ? parsed.error : undefined;
  const data = error !== undefined && isPlainObject(error.data) ? error.data : undefined;
  if (data?.code !== 'FORBIDDEN' || typeof data.required_role !== 'string') return undefined;
  return new ForbiddenError(String(error?.message), { details: { required_role: data.required_role } });
}
