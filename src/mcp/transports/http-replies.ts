/**
 * How /mcp answers over HTTP when it answers with an error: always a JSON-RPC error body, whatever
 * failed — the route itself, body parsing, the body limit or the app's security hooks.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_SPECS, isHyphaeError } from '../../core/errors.js';
import type { ErrorCode } from '../../core/errors.js';
import type { JsonRpcErrorObject, JsonRpcId, JsonRpcReply } from '../protocol/json-rpc.js';
import { RPC_INVALID_REQUEST, RPC_PARSE_ERROR, serializeReply } from '../protocol/json-rpc.js';
import { SUPPORTED_PROTOCOL_VERSIONS } from '../protocol/protocol-version.js';
import { toRpcError } from '../protocol/rpc-errors.js';
import { bodyTooLargeError, mediaType, rememberRefusal } from '../../surface-shared/index.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A JSON-RPC reply as the response body: where an HTTP reply becomes text. */
export function sendRpcReply(reply: FastifyReply, status: number, rpcReply: JsonRpcReply): FastifyReply {
  return reply.code(status).header('content-type', JSON_CONTENT_TYPE).send(serializeReply(rpcReply));
}

/** `id`: the request's, once its body is read; null before that, or when it has none (as JSON-RPC 2.0 answers). */
export function sendRpcError(reply: FastifyReply, status: number, error: JsonRpcErrorObject, id: JsonRpcId | null = null): FastifyReply {
  return sendRpcReply(reply, status, { id, error });
}

/** A facade error code as its JSON-RPC error, with a message of the caller's. */
export function codedError(code: ErrorCode, message: string): JsonRpcErrorObject {
  return { code: ERROR_SPECS[code].rpcCode, message, data: { code } };
}

/** A facade failure at the HTTP status its code has (remembered: an OAuth challenge may name it). */
export function sendFacadeError(reply: FastifyReply, error: unknown, id: JsonRpcId | null = null): FastifyReply {
  rememberRefusal(reply.request, error);
  const status = isHyphaeError(error) ? ERROR_SPECS[error.code].httpStatus : 500;
  return sendRpcError(reply, status, toRpcError(error), id);
}

export function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

/** Accept is absent, or allows JSON (clients that also take SSE are answered in JSON). */
export function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const type = mediaType(range);
    return type === 'application/json' || type === 'application/*' || type === '*/*';
  });
}

export function refuseVersionHeader(reply: FastifyReply, id: JsonRpcId | null = null): FastifyReply {
  return sendRpcError(
    reply,
    400,
    {
      code: RPC_INVALID_REQUEST,
      message: `Unsupported MCP-Protocol-Version; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
      data: { supported: SUPPORTED_PROTOCOL_VERSIONS },
    },
    id,
  );
}

const PARSE_FAILURES = new Set(['FST_ERR_CTP_EMPTY_JSON_BODY', 'FST_ERR_CTP_INVALID_JSON_BODY']);

/**
 * Any failure on an /mcp route (body parsing, size, security hooks) as a JSON-RPC error body.
 * `refusesVersionHeader` says whether the request's version header is to be refused before
 * anything about its body, as the handshake revisions answer.
 */
export function mcpErrorHandler(log: (message: string) => void, refusesVersionHeader: (request: FastifyRequest) => boolean) {
  return function handle(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (refusesVersionHeader(request)) return refuseVersionHeader(reply);
    if (isHyphaeError(error)) return sendFacadeError(reply, error);
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 400 && (PARSE_FAILURES.has(error.code) || error instanceof SyntaxError)) {
      return sendRpcError(reply, 400, { code: RPC_PARSE_ERROR, message: 'Parse error: the body is not valid JSON' });
    }
    switch (status) {
      case 413:
        return sendFacadeError(reply, bodyTooLargeError(request));
      case 415:
        return sendRpcError(reply, 415, { code: RPC_INVALID_REQUEST, message: 'Content-Type must be application/json' });
      case 401:
        return sendRpcError(reply, 401, codedError('UNAUTHENTICATED', 'missing or invalid API key'));
      case 403:
        return sendRpcError(reply, 403, codedError('FORBIDDEN', 'forbidden'));
      case 429:
        return sendRpcError(reply, 429, codedError('RATE_LIMITED', 'rate limit exceeded'));
    }
    if (status >= 400 && status < 500) return sendRpcError(reply, status, { code: RPC_INVALID_REQUEST, message: 'Invalid Request' });
    log(`mcp route failed: ${error.name}`);
    return sendRpcError(reply, 500, codedError('INTERNAL', 'internal error'));
  };
}

/** `GET`/`DELETE /mcp` without a push stream: this server keeps no sessions to open or end. */
export async function mcpMethodNotAllowed(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await sendRpcError(reply.header('allow', 'POST'), 405, { code: RPC_INVALID_REQUEST, message: 'Method Not Allowed: use POST' });
}
