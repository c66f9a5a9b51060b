/**
 * An answer refusing a call for a role the caller lacks, found in its typed JSON-RPC
 * error (`data.required_role`). To an OAuth caller it goes out as HTTP 403 with the scope challenge, so a
 * client can ask for that scope and retry (MCP authorization: scope challenges); a key's caller
 * keeps the plain answer.
 */
import { ForbiddenError } from '../../core/errors.js';
import type { JsonRpcReply } from '../protocol/json-rpc.js';

export function roleRefusalIn(reply: JsonRpcReply): ForbiddenError | undefined {
  if (!('error' in reply)) return undefined;
  const { message, data } = reply.error;
  if (data?.code !== 'FORBIDDEN' || typeof data.required_role !== 'string') return undefined;
  return new ForbiddenError(message, { details: { required_role: data.required_role } });
}
