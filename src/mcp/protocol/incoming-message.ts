/**
 * One incoming message, classified once where it arrives and passed down as it is: its JSON-RPC
 * kind, the id a refusal answers with, and whether it is of the stateless revision (2026-07-28:
 * its `_meta` names a protocol version) or of the handshake revisions.
 */
import type { JsonRpcId, JsonRpcMessage } from './json-rpc.js';
import { classifyMessage, isJsonRpcId, isPlainObject } from './json-rpc.js';
import { declaresStatelessMeta } from './stateless-meta.js';

export interface IncomingMessage {
  readonly message: JsonRpcMessage;
  /** The message's id when it is readable (a request's, a client response's, an invalid one's), else null. */
  readonly replyId: JsonRpcId | null;
  /** It has an id and a method, and its `_meta` declares the stateless revision (read even when the rest is invalid). */
  readonly stateless: boolean;
}

export function classifyIncoming(value: unknown): IncomingMessage {
  const message = classifyMessage(value);
  if (!isPlainObject(value)) return { message, replyId: null, stateless: false };
  const stateless = Object.hasOwn(value, 'id') && typeof value.method === 'string' && declaresStatelessMeta(value.params);
  return { message, replyId: isJsonRpcId(value.id) ? value.id : null, stateless };
}
