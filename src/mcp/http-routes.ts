/**
 * MCP over HTTP (`/mcp`, Streamable HTTP in stateless JSON mode). Each request is authenticated
 * on its own from `x-hyphae-key`; replies are `application/json`; notifications get 202.
 * Host/Origin checks, body limit and rate limits come from the app (src/http); this module turns
 * any failure on its routes into a JSON-RPC error body.
 * Both eras share the endpoint: a request whose `_meta` declares its protocol version is modern
 * (2026-07-28: header rules, no session id, subscriptions/listen as an SSE response); any other is
 * served exactly as the legacy revisions say.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify';
import { ERROR_SPECS, isHyphaeError } from '../core/errors.js';
import type { ErrorCode } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import type { MemoryFacade } from '../service/memory-facade.js';
import type { JsonRpcErrorObject, JsonRpcId } from './json-rpc.js';
import { RPC_INVALID_PARAMS, RPC_INVALID_REQUEST, RPC_PARSE_ERROR, isPlainObject, serializeError } from './json-rpc.js';
import type { McpCallObserver, McpLog, McpSession } from './mcp-dispatcher.js';
import { McpDispatcher } from './mcp-dispatcher.js';
import {
  ASSUMED_PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
  isModernProtocolVersion,
  isSupportedProtocolVersion,
} from './protocol-version.js';
import { toRpcError } from './rpc-errors.js';
import { MCP_SESSION_HEADER, mintSessionId, sessionKeyOf } from './mcp-session-id.js';
import { storedSubscriptions } from './resources/session-subscriptions.js';
import { checkModernHeaders } from './modern/http-headers.js';
import { createHttpListenStreams } from './modern/http-listen.js';
import type { StreamDropMetrics } from './stream-drop.js';
import type { HttpListenStreams } from './modern/http-listen.js';
import { META_SUBSCRIPTION_ID, declaresModernMeta } from './modern/modern-meta.js';

export const MCP_PATH = '/mcp';
export const API_KEY_HEADER = 'x-hyphae-key';
/** Longer values are refused before any lookup: no key is that long. */
const MAX_API_KEY_CHARS = 512;
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export interface McpRouteDeps {
  readonly facade: MemoryFacade;
  readonly log?: McpLog;
  /**
   * Serves `GET /mcp`. Absent: 405 (no live stream). The live diff stream (SSE) plugs in here;
   * it runs after the same authentication as POST, so `mcpPrincipalOf(request)` is set.
   */
  readonly liveStream?: RouteHandlerMethod;
  readonly observer?: McpCallObserver;
  /** Where listen streams dropped by backpressure are counted. */
  readonly streamDrops?: StreamDropMetrics;
  readonly serverVersion?: string;
  /** Keep-alive interval of subscriptions/listen streams; default 15 s. */
  readonly listenHeartbeatMs?: number;
}

/** What registerMcpRoutes leaves running: the modern subscriptions/listen streams (ended on app close). */
export interface McpRoutes {
  readonly listenStreams: HttpListenStreams;
}

const principals = new WeakMap<FastifyRequest, Principal>();
/** POSTs whose MCP-Protocol-Version names no legacy revision: refused as before unless the body is modern. */
const unknownVersionHeader = new WeakSet<FastifyRequest>();

/** The principal authenticated for this /mcp request. */
export function mcpPrincipalOf(request: FastifyRequest): Principal | undefined {
  return principals.get(request);
}

/** `id`: the request's, once its body is read (JSON-RPC §5); null before that, or when it has none. */
function sendRpcError(reply: FastifyReply, status: number, error: JsonRpcErrorObject, id: JsonRpcId | null = null): FastifyReply {
  return reply.code(status).header('content-type', JSON_CONTENT_TYPE).send(serializeError(id, error));
}

function codedError(code: ErrorCode, message: string): JsonRpcErrorObject {
  return { code: ERROR_SPECS[code].rpcCode, message, data: { code } };
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}

function mediaType(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const semicolon = header.indexOf(';');
  return (semicolon === -1 ? header : header.slice(0, semicolon)).trim().toLowerCase();
}

/** Accept is absent, or allows JSON (clients that also take SSE are answered in JSON). */
function acceptsJson(accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const type = mediaType(range);
    return type === 'application/json' || type === 'application/*' || type === '*/*';
  });
}

function refuseVersionHeader(reply: FastifyReply, id: JsonRpcId | null = null): FastifyReply {
  return sendRpcError(reply, 400, {
    code: RPC_INVALID_REQUEST,
    message: `Unsupported MCP-Protocol-Version; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}`,
    data: { supported: SUPPORTED_PROTOCOL_VERSIONS },
  }, id);
}

/** Accept allows an SSE response (what a subscriptions/listen answer is). */
function acceptsEventStream(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((range) => {
    const type = mediaType(range);
    return type === 'text/event-stream' || type === 'text/*' || type === '*/*';
  });
}

/** A JSON-RPC request (it has an id) whose `_meta` declares the modern era. */
function isModernRequest(body: unknown): body is Record<string, unknown> {
  return isPlainObject(body) && Object.hasOwn(body, 'id') && typeof body.method === 'string' && declaresModernMeta(body.params);
}

function readableId(body: unknown): JsonRpcId | null {
  if (!isPlainObject(body)) return null;
  const id = body.id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id)) ? id : null;
}

function makeAuthenticate(facade: MemoryFacade, deferVersionCheck: boolean) {
  return async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const key = headerValue(request, API_KEY_HEADER)?.trim();
    if (key === undefined || key === '' || key.length > MAX_API_KEY_CHARS) {
      await sendRpcError(reply, 401, codedError('UNAUTHENTICATED', `missing or invalid API key: send it in the ${API_KEY_HEADER} header`));
      return;
    }
    try {
      principals.set(request, await facade.authenticate(key));
    } catch (error) {
      const status = isHyphaeError(error) ? ERROR_SPECS[error.code].httpStatus : 500;
      await sendRpcError(reply, status, toRpcError(error));
      return;
    }
    const version = headerValue(request, 'mcp-protocol-version');
    if (version !== undefined && !isSupportedProtocolVersion(version)) {
      // A POST may still be a modern request (its version is decided from the body); a GET never is.
      if (deferVersionCheck) unknownVersionHeader.add(request);
      else await refuseVersionHeader(reply);
    }
  };
}

const PARSE_FAILURES = new Set(['FST_ERR_CTP_EMPTY_JSON_BODY', 'FST_ERR_CTP_INVALID_JSON_BODY']);

/** Any failure on an /mcp route (body parsing, size, security hooks) as a JSON-RPC error body. */
function mcpErrorHandler(log: McpLog) {
  return function handle(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    // Legacy order: a refused version header is answered before anything about the body.
    if (unknownVersionHeader.has(request) && !isModernProtocolVersion(headerValue(request, 'mcp-protocol-version'))) {
      return refuseVersionHeader(reply);
    }
    if (isHyphaeError(error)) return sendRpcError(reply, ERROR_SPECS[error.code].httpStatus, toRpcError(error));
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 400 && (PARSE_FAILURES.has(error.code) || error instanceof SyntaxError)) {
      return sendRpcError(reply, 400, { code: RPC_PARSE_ERROR, message: 'Parse error: the body is not valid JSON' });
    }
    switch (status) {
      case 413:
        return sendRpcError(reply, 413, codedError('TOO_LARGE', 'request body is too large'));
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

/** `GET`/`DELETE /mcp` without a live stream: this server keeps no sessions to open or end. */
export async function mcpMethodNotAllowed(_request: FastifyRequest, reply: FastifyReply): Promise<void> {
  await sendRpcError(reply.header('allow', 'POST'), 405, { code: RPC_INVALID_REQUEST, message: 'Method Not Allowed: use POST' });
}

/** Registers POST/GET/DELETE /mcp on the app (called by buildHttpApp). */
export function registerMcpRoutes(app: FastifyInstance, deps: McpRouteDeps): McpRoutes {
  const log = deps.log ?? ((message: string): void => app.log.error(message));
  const dispatcher = new McpDispatcher({
    facade: deps.facade,
    log,
    ...(deps.observer === undefined ? {} : { observer: deps.observer }),
    ...(deps.serverVersion === undefined ? {} : { serverVersion: deps.serverVersion }),
  });
  const authenticate = makeAuthenticate(deps.facade, false);
  const authenticatePost = makeAuthenticate(deps.facade, true);
  const errorHandler = mcpErrorHandler(log);
  const listenStreams = createHttpListenStreams({
    facade: deps.facade,
    closedResult: (id) => dispatcher.modern.listenClosedResult(id, META_SUBSCRIPTION_ID),
    log,
    ...(deps.listenHeartbeatMs === undefined ? {} : { heartbeatMs: deps.listenHeartbeatMs }),
    ...(deps.streamDrops === undefined ? {} : { metrics: deps.streamDrops }),
  });
  app.addHook('preClose', async () => listenStreams.closeAll());

  app.post(MCP_PATH, { onRequest: authenticatePost, errorHandler }, async (request, reply) => {
    const body: unknown = request.body;
    const modern = isModernRequest(body);
    const header = headerValue(request, 'mcp-protocol-version');
    // The body is read from here on: every refusal answers with the request's id.
    const id = readableId(body);
    if (!modern && unknownVersionHeader.has(request) && !isModernProtocolVersion(header)) return refuseVersionHeader(reply, id);
    if (mediaType(headerValue(request, 'content-type')) !== 'application/json') {
      return sendRpcError(reply, 415, { code: RPC_INVALID_REQUEST, message: 'Content-Type must be application/json' }, id);
    }
    if (!acceptsJson(headerValue(request, 'accept'))) {
      return sendRpcError(reply, 406, { code: RPC_INVALID_REQUEST, message: 'Not Acceptable: this endpoint answers application/json' }, id);
    }
    const principal = principals.get(request);
    if (principal === undefined) return sendRpcError(reply, 401, codedError('UNAUTHENTICATED', 'missing or invalid API key'), id);
    if (modern) return serveModern(request, reply, principal, body);
    if (isModernProtocolVersion(header) && isPlainObject(body) && Object.hasOwn(body, 'id') && typeof body.method === 'string') {
      // The header names the modern revision, the body does not carry what that revision requires.
      return sendRpcError(reply, 400, {
        code: RPC_INVALID_PARAMS,
        message: 'Invalid params: a 2026-07-28 request carries _meta with io.modelcontextprotocol/protocolVersion and clientCapabilities',
      }, id);
    }
    const initializing = typeof body === 'object' && body !== null && (body as { method?: unknown }).method === 'initialize';
    // initialize opens a new session; every later request names its own in the header.
    const sessionId = initializing ? mintSessionId() : sessionKeyOf(request.headers[MCP_SESSION_HEADER]);
    if (sessionId === null) {
      return sendRpcError(reply, 400, { code: RPC_INVALID_REQUEST, message: 'Mcp-Session-Id must be at most 128 visible ASCII characters' }, id);
    }
    const session: McpSession = {
      principal,
      protocolVersion: isSupportedProtocolVersion(header) ? header : ASSUMED_PROTOCOL_VERSION,
      subscriptions: storedSubscriptions(deps.facade, principal, sessionId),
    };
    const outcome = await dispatcher.handleValue(body, session);
    if (outcome.kind === 'accepted') return reply.code(202).send();
    // A legacy body never opens a listen stream (that is a modern request); the type still allows it.
    if (outcome.kind === 'listen') return sendRpcError(reply, 400, { code: RPC_INVALID_REQUEST, message: 'Invalid Request' }, id);
    if (initializing && outcome.kind === 'answered') reply.header(MCP_SESSION_HEADER, sessionId);
    return reply
      .code(outcome.kind === 'answered' ? 200 : 400)
      .header('content-type', JSON_CONTENT_TYPE)
      .send(outcome.body);
  });

  /** A modern request: header rules, then the stateless method table; Mcp-Session-Id is ignored, none is minted. */
  async function serveModern(request: FastifyRequest, reply: FastifyReply, principal: Principal, body: Record<string, unknown>): Promise<FastifyReply> {
    const id = readableId(body);
    const rejection = checkModernHeaders(request.headers, body);
    if (rejection !== null) {
      return reply.code(rejection.httpStatus).header('content-type', JSON_CONTENT_TYPE).send(serializeError(id, rejection.error));
    }
    if (body.method === 'subscriptions/listen' && !acceptsEventStream(headerValue(request, 'accept'))) {
      return reply.code(406).header('content-type', JSON_CONTENT_TYPE).send(serializeError(id, {
        code: RPC_INVALID_REQUEST,
        message: 'Not Acceptable: subscriptions/listen answers with text/event-stream',
      }));
    }
    const outcome = await dispatcher.handleValue(body, { principal, protocolVersion: ASSUMED_PROTOCOL_VERSION });
    if (outcome.kind === 'listen') {
      await listenStreams.open(request, reply, principal, outcome.id, outcome.filter);
      return reply;
    }
    if (outcome.kind === 'accepted') return reply.code(202).send();
    return reply
      .code(outcome.kind === 'answered' ? (outcome.httpStatus ?? 200) : 400)
      .header('content-type', JSON_CONTENT_TYPE)
      .send(outcome.body);
  }

  if (deps.liveStream === undefined) {
    app.get(MCP_PATH, { errorHandler }, mcpMethodNotAllowed);
  } else {
    app.get(MCP_PATH, { onRequest: authenticate, errorHandler }, deps.liveStream);
  }
  app.delete(MCP_PATH, { errorHandler }, mcpMethodNotAllowed);
  return { listenStreams };
}
