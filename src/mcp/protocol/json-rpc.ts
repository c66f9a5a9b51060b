/**
 * JSON-RPC 2.0 envelope handling: classifying one parsed message, and replies as values
 * (`{id, result}` or `{id, error}`) that the transport sending them serialises once. A result made
 * ahead of time (tools/list) is carried as its JSON text and spliced in, not re-serialised.
 */
export type JsonRpcId = string | number;

export const RPC_PARSE_ERROR = -32700;
export const RPC_INVALID_REQUEST = -32600;
export const RPC_METHOD_NOT_FOUND = -32601;
export const RPC_INVALID_PARAMS = -32602;
export const RPC_INTERNAL_ERROR = -32603;

export interface JsonRpcErrorObject {
  readonly code: number;
  readonly message: string;
  /** `code` names the stable error code of a facade failure; the rest are its details. */
  readonly data?: Readonly<Record<string, unknown>>;
}

export type JsonRpcParams = Readonly<Record<string, unknown>>;

export interface JsonRpcRequest {
  readonly kind: 'request';
  readonly id: JsonRpcId;
  readonly method: string;
  /** As sent: an object, an array, null or absent; each method decides what it accepts. */
  readonly params: unknown;
}

export interface JsonRpcNotification {
  readonly kind: 'notification';
  readonly method: string;
  /** As sent (only notifications/cancelled is read: it may end a subscriptions/listen stream). */
  readonly params?: unknown;
}

/** A client's reply to a server request; this server sends none, so these are acknowledged and dropped. */
export interface JsonRpcClientResponse {
  readonly kind: 'response';
}

export interface JsonRpcInvalid {
  readonly kind: 'invalid';
  /** The request's id when it could be read, else null (as JSON-RPC 2.0 answers an unreadable id). */
  readonly id: JsonRpcId | null;
  readonly error: JsonRpcErrorObject;
}

export type JsonRpcMessage = JsonRpcRequest | JsonRpcNotification | JsonRpcClientResponse | JsonRpcInvalid;

/** A notification this server sends (the pushes). */
export interface JsonRpcNotificationMessage {
  readonly jsonrpc: '2.0';
  readonly method: string;
  readonly params?: Record<string, unknown>;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isJsonRpcId(value: unknown): value is JsonRpcId {
  return typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value));
}

function invalid(id: JsonRpcId | null, message: string): JsonRpcInvalid {
  return { kind: 'invalid', id, error: { code: RPC_INVALID_REQUEST, message } };
}

/** Sorts one parsed JSON value into request, notification, client response or invalid request. */
export function classifyMessage(value: unknown): JsonRpcMessage {
  if (Array.isArray(value)) return invalid(null, 'Invalid Request: batches are not supported');
  if (!isPlainObject(value)) return invalid(null, 'Invalid Request: a message must be a JSON object');
  const hasId = Object.hasOwn(value, 'id');
  const id = hasId && isJsonRpcId(value.id) ? value.id : null;
  if (value.jsonrpc !== '2.0') return invalid(id, 'Invalid Request: jsonrpc must be "2.0"');
  if (!Object.hasOwn(value, 'method')) {
    if (hasId && id !== null && (Object.hasOwn(value, 'result') || Object.hasOwn(value, 'error'))) {
      return { kind: 'response' };
    }
    return invalid(id, 'Invalid Request: method is required');
  }
  if (typeof value.method !== 'string' || value.method.length === 0) {
    return invalid(id, 'Invalid Request: method must be a non-empty string');
  }
  const params = value.params;
  if (params !== undefined && typeof params !== 'object') {
    return invalid(id, 'Invalid Request: params must be an object');
  }
  if (!hasId) return { kind: 'notification', method: value.method, params };
  if (id === null) return invalid(null, 'Invalid Request: id must be a string or a number');
  return { kind: 'request', id, method: value.method, params };
}

/** Named params of a request: absent reads as empty; an array or null is not named params. */
export function namedParams(params: unknown): JsonRpcParams | null {
  if (params === undefined) return {};
  return isPlainObject(params) ? params : null;
}

/** A success reply whose result is already JSON text. */
export function serializeResult(id: JsonRpcId, resultJson: string): string {
  return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${resultJson}}`;
}

export function serializeError(id: JsonRpcId | null, error: JsonRpcErrorObject): string {
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}

export type JsonObject = Readonly<Record<string, unknown>>;

/**
 * JSON text made once and spliced into replies as it is: the tools/list result (once per process),
 * or a result's member whose text was needed anyway (a tool result's structuredContent, which its
 * text block carries too). A result is a PreparedJson, or an object whose members may be.
 */
export class PreparedJson {
  constructor(readonly text: string) {}
}

/** A result: a JSON object, or one prepared as text. */
export type JsonRpcResult = JsonObject | PreparedJson;

export interface JsonRpcResultReply {
  readonly id: JsonRpcId;
  readonly result: JsonRpcResult;
}

export interface JsonRpcErrorReply {
  /** null when the request's id could not be read (as JSON-RPC 2.0 answers it). */
  readonly id: JsonRpcId | null;
  readonly error: JsonRpcErrorObject;
}

/** A reply as a value: the method tables build it, the transport serialises it once (serializeReply). */
export type JsonRpcReply = JsonRpcResultReply | JsonRpcErrorReply;

export const PARSE_ERROR_REPLY: JsonRpcErrorReply = { id: null, error: { code: RPC_PARSE_ERROR, message: 'Parse error: the message is not valid JSON' } };

/** A result's JSON text, member by member so a PreparedJson member is spliced, in JSON.stringify's key order. */
function resultText(result: JsonRpcResult): string {
  if (result instanceof PreparedJson) return result.text;
  let text = '';
  for (const key of Object.keys(result)) {
    const value = result[key];
    const member = value instanceof PreparedJson ? value.text : JSON.stringify(value);
    // As JSON.stringify does: a member with no JSON form (undefined) is left out.
    if (member !== undefined) text += `${text === '' ? '' : ','}${JSON.stringify(key)}:${member}`;
  }
  return `{${text}}`;
}

/** A reply's wire text: the one place a reply becomes text. */
export function serializeReply(reply: JsonRpcReply): string {
  if ('error' in reply) return serializeError(reply.id, reply.error);
  return serializeResult(reply.id, resultText(reply.result));
}

/** A result with members appended after its own, in their order (the stateless revision's cache hints, resultType, _meta). */
export function withResultMembers(result: JsonRpcResult, members: JsonObject): JsonRpcResult {
  // Object.assign, not spread: this runs on every stateless reply, and spread costs far more here.
  if (!(result instanceof PreparedJson)) return Object.assign({}, result, members);
  const appended = resultText(members).slice(1, -1);
  const inner = result.text.trim();
  return new PreparedJson(inner === '{}' ? `{${appended}}` : `${inner.slice(0, -1)},${appended}}`);
}
