/**
 * MCP over HTTP (`/mcp`, Streamable HTTP in stateless JSON mode). Each request is authenticated
 * on its own (http-authentication.ts); replies are `application/json`; notifications get 202.
 * Host/Origin checks, body limit and rate limits come from the app (src/http); any failure on
 * these routes becomes a JSON-RPC error body (http-replies.ts).
 * Every revision shares the endpoint: a request whose `_meta` declares its protocol version is of
 * the stateless revision (2026-07-28: header rules, no session id, subscriptions/listen as an SSE
 * response); any other is served as the handshake revisions say.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../../core/principal.js';
import type { MemoryFacade } from '../../service/memory-facade.js';
import { acceptsEventStream, mediaType, rememberRefusal } from '../../surface-shared/index.js';
import type { IncomingMessage } from '../protocol/incoming-message.js';
import { classifyIncoming } from '../protocol/incoming-message.js';
import type { JsonRpcReply } from '../protocol/json-rpc.js';
import { RPC_INVALID_PARAMS, RPC_INVALID_REQUEST, isPlainObject } from '../protocol/json-rpc.js';
import { ASSUMED_PROTOCOL_VERSION, isStatelessProtocolVersion, isSupportedProtocolVersion } from '../protocol/protocol-version.js';
import { MCP_SESSION_HEADER, mintSessionId, sessionKeyOf } from '../protocol/session-id.js';
import type { McpSession } from '../server/handshake-methods.js';
import type { McpLog } from '../server/mcp-dispatcher.js';
import { McpDispatcher } from '../server/mcp-dispatcher.js';
import { createMcpFeatures } from '../features/mcp-features.js';
import { storedSubscriptions } from '../features/resources/session-subscriptions.js';
import type { McpCallObserver } from '../features/tools/tool-call.js';
import { createListenPushStreams } from './listen-push-streams.js';
import type { ListenPushStreams } from './listen-push-streams.js';
import type { PushDropMetrics } from '../features/push/push-drop.js';
import type { PushStream } from './push-stream.js';
import { authenticatedByToken, mcpAuthentication, mcpPrincipalOf, refusesVersionHeader } from './http-authentication.js';
import {
  acceptsJson,
  codedError,
  headerValue,
  mcpErrorHandler,
  mcpMethodNotAllowed,
  refuseVersionHeader,
  sendRpcError,
  sendRpcReply,
} from './http-replies.js';
import { roleRefusalIn } from './scope-refusal.js';
import { checkStatelessHeaders } from './stateless-http-headers.js';
import { CHANNEL_HEADER, headerDeclinesChannel } from '../features/push/channel-settings.js';
import type { HydraConnection } from '../features/hydradb/hydradb-scope.js';
import type { HydraCall } from '../features/hydradb/hydradb-tool.js';
import type { SourceLinks } from '../features/hydradb/source-links.js';
import type { SourceLinkKey } from '../../surface-shared/index.js';
import { DEFAULT_TOOLSETS } from '../features/toolsets.js';
import type { ToolsetChoice } from '../features/toolsets.js';
import { isRefusal, requestConnection, requestedToolsets } from './hydradb-request.js';
import type { Refusal } from './hydradb-request.js';

export const MCP_PATH = '/mcp';

export interface McpRouteDeps {
  readonly facade: MemoryFacade;
  readonly log?: McpLog;
  /**
   * Serves `GET /mcp` (ended on app close). Absent: 405. It runs after the same authentication as
   * POST, so `mcpPrincipalOf(request)` is set.
   */
  readonly pushStream?: PushStream;
  readonly observer?: McpCallObserver;
  /** Where listen pushes dropped by backpressure are counted. */
  readonly pushDrops?: PushDropMetrics;
  readonly serverVersion?: string;
  /** Keep-alive interval of subscriptions/listen streams; default 15 s. */
  readonly listenHeartbeatMs?: number;
  /** The server offers Claude Code channel events (initialize declares them unless the client declines, `x-hyphae-channel: off`). */
  readonly channel?: boolean;
  /** The toolsets served when a request names none (`?toolset=`); default hyphae's eleven tools. */
  readonly toolsets?: ToolsetChoice;
  /** The HydraDB tools' defaults from the server's environment (HYDRADB_DATABASE, HYDRADB_COLLECTION). */
  readonly hydradb?: HydraConnection;
  /** Signs hydradb_inspect's download links (the REST slice route verifies them with the same key). */
  readonly links?: SourceLinkKey;
  /** The origin links name (HYPHAE_PUBLIC_URL); absent: the request's own. */
  readonly publicUrl?: string;
}

/** The /mcp routes, built before the app they go on, so their owner can count their pushes. */
export interface McpRoutes {
  /** The subscriptions/listen pushes (ended on app close). */
  readonly listenStreams: ListenPushStreams;
  /** Mounts POST/GET/DELETE /mcp on the app. */
  mount(app: FastifyInstance): void;
}

/** Mounts POST/GET/DELETE /mcp on the app at once. */
export function registerMcpRoutes(app: FastifyInstance, deps: McpRouteDeps): McpRoutes {
  const routes = createMcpRoutes(deps);
  routes.mount(app);
  return routes;
}

export function createMcpRoutes(deps: McpRouteDeps): McpRoutes {
  // Without a log of its own, failures go to the log of the app the routes are mounted on.
  let appLog: McpLog = (): void => undefined;
  const log: McpLog = deps.log ?? ((message) => appLog(message));
  const serverToolsets = deps.toolsets ?? DEFAULT_TOOLSETS;
  const dispatcherFor = (toolsets: ToolsetChoice, hydradb?: HydraCall): McpDispatcher =>
    new McpDispatcher({
      features: createMcpFeatures({
        facade: deps.facade,
        log,
        toolsets,
        ...(deps.observer === undefined ? {} : { observer: deps.observer }),
        ...(hydradb === undefined ? {} : { hydradb }),
      }),
      log,
      ...(deps.serverVersion === undefined ? {} : { serverVersion: deps.serverVersion }),
      channel: deps.channel === true,
    });
  // Requests without the HydraDB tools share one dispatcher; one with them gets its own, bound to its headers.
  const dispatcher = dispatcherFor(DEFAULT_TOOLSETS);

  /** The dispatcher this request is served by, or why it is refused. */
  function requestDispatcher(request: FastifyRequest, principal: Principal): McpDispatcher | Refusal {
    const choice = requestedToolsets(request, serverToolsets);
    if (isRefusal(choice)) return choice;
    if (!choice.toolsets.includes('hydradb')) return dispatcher;
    const connection = requestConnection(request, principal, authenticatedByToken(request), deps.hydradb ?? {});
    if (isRefusal(connection)) return connection;
    return dispatcherFor(choice, { ...connection, ...(deps.links === undefined ? {} : { links: linksFrom(deps.links, deps.publicUrl ?? `${request.protocol}://${request.host}`) }) });
  }
  const errorHandler = mcpErrorHandler(log, refusesVersionHeader);
  const listenStreams = createListenPushStreams({
    facade: deps.facade,
    closedResult: (id) => dispatcher.stateless.listenClosedResult(id),
    log,
    ...(deps.listenHeartbeatMs === undefined ? {} : { heartbeatMs: deps.listenHeartbeatMs }),
    ...(deps.pushDrops === undefined ? {} : { metrics: deps.pushDrops }),
  });

  async function servePost(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
    const body: unknown = request.body;
    // Classified once, here; the dispatcher takes the classification as it is.
    const incoming = classifyIncoming(body);
    const { stateless } = incoming;
    // The body is read from here on: every refusal answers with the request's id.
    const id = incoming.replyId;
    if (!stateless && refusesVersionHeader(request)) return refuseVersionHeader(reply, id);
    if (mediaType(headerValue(request, 'content-type')) !== 'application/json') {
      return sendRpcError(reply, 415, { code: RPC_INVALID_REQUEST, message: 'Content-Type must be application/json' }, id);
    }
    if (!acceptsJson(headerValue(request, 'accept'))) {
      return sendRpcError(reply, 406, { code: RPC_INVALID_REQUEST, message: 'Not Acceptable: this endpoint answers application/json' }, id);
    }
    const principal = mcpPrincipalOf(request);
    if (principal === undefined) return sendRpcError(reply, 401, codedError('UNAUTHENTICATED', 'missing or invalid API key'), id);
    const served = requestDispatcher(request, principal);
    if (isRefusal(served)) return sendRpcError(reply, served.status, served.error, id);
    if (stateless && isPlainObject(body)) return serveStateless(request, reply, principal, body, incoming, served);
    const header = headerValue(request, 'mcp-protocol-version');
    if (isStatelessProtocolVersion(header) && isPlainObject(body) && Object.hasOwn(body, 'id') && typeof body.method === 'string') {
      // The header names the stateless revision, the body does not carry what that revision requires.
      const message = 'Invalid params: a 2026-07-28 request carries _meta with io.modelcontextprotocol/protocolVersion and clientCapabilities';
      return sendRpcError(reply, 400, { code: RPC_INVALID_PARAMS, message }, id);
    }
    const initializing = isPlainObject(body) && body.method === 'initialize';
    // initialize opens a new session; every later request names its own in the header.
    const sessionId = initializing ? mintSessionId() : sessionKeyOf(request.headers[MCP_SESSION_HEADER]);
    if (sessionId === null) {
      return sendRpcError(reply, 400, { code: RPC_INVALID_REQUEST, message: 'Mcp-Session-Id must be at most 128 visible ASCII characters' }, id);
    }
    const session: McpSession = {
      principal,
      protocolVersion: isSupportedProtocolVersion(header) ? header : ASSUMED_PROTOCOL_VERSION,
      subscriptions: storedSubscriptions(deps.facade, principal, sessionId),
      channel: deps.channel === true && !headerDeclinesChannel(request.headers[CHANNEL_HEADER]),
    };
    const outcome = await served.handle(incoming, session);
    if (outcome.kind === 'accepted') return reply.code(202).send();
    // A handshake-revision body never opens a listen (that is a stateless request); the type still allows it.
    if (outcome.kind === 'listen') return sendRpcError(reply, 400, { code: RPC_INVALID_REQUEST, message: 'Invalid Request' }, id);
    if (initializing && outcome.kind === 'answered') reply.header(MCP_SESSION_HEADER, sessionId);
    return sendRpcReply(reply, outcome.kind === 'answered' ? answeredStatus(request, outcome.reply, 200) : 400, outcome.reply);
  }

  /** `status`, or 403 for an OAuth caller refused for a role its scopes lack (the app adds the scope challenge). */
  function answeredStatus(request: FastifyRequest, rpcReply: JsonRpcReply, status: number): number {
    if (!authenticatedByToken(request)) return status;
    const refusal = roleRefusalIn(rpcReply);
    if (refusal === undefined) return status;
    rememberRefusal(request, refusal);
    return 403;
  }

  /** A stateless request: header rules, then its method table; Mcp-Session-Id is ignored, none is minted. */
  async function serveStateless(
    request: FastifyRequest,
    reply: FastifyReply,
    principal: Principal,
    body: Record<string, unknown>,
    incoming: IncomingMessage,
    served: McpDispatcher,
  ): Promise<FastifyReply> {
    const id = incoming.replyId;
    const rejection = checkStatelessHeaders(request.headers, body);
    if (rejection !== null) return sendRpcError(reply, rejection.httpStatus, rejection.error, id);
    if (body.method === 'subscriptions/listen' && !acceptsEventStream(request.headers.accept, { wildcards: true })) {
      return sendRpcError(reply, 406, { code: RPC_INVALID_REQUEST, message: 'Not Acceptable: subscriptions/listen answers with text/event-stream' }, id);
    }
    const outcome = await served.handle(incoming, { principal, protocolVersion: ASSUMED_PROTOCOL_VERSION });
    if (outcome.kind === 'listen') {
      await listenStreams.open(reply, principal, outcome.id, outcome.filter);
      return reply;
    }
    if (outcome.kind === 'accepted') return reply.code(202).send();
    return sendRpcReply(reply, outcome.kind === 'answered' ? answeredStatus(request, outcome.reply, outcome.httpStatus ?? 200) : 400, outcome.reply);
  }

  return {
    listenStreams,
    mount(app: FastifyInstance): void {
      if (deps.log === undefined) appLog = (message): void => app.log.error(message);
      const { pushStream } = deps;
      // Open streams would hold a graceful close up forever.
      if (pushStream !== undefined) app.addHook('preClose', async () => pushStream.closeAll());
      app.addHook('preClose', async () => listenStreams.closeAll());
      app.post(MCP_PATH, { onRequest: mcpAuthentication(deps.facade, true), errorHandler }, servePost);
      if (pushStream === undefined) app.get(MCP_PATH, { errorHandler }, mcpMethodNotAllowed);
      else app.get(MCP_PATH, { onRequest: mcpAuthentication(deps.facade, false), errorHandler }, pushStream.handler);
      app.delete(MCP_PATH, { errorHandler }, mcpMethodNotAllowed);
    },
  };
}

/** hydradb_inspect's links, named under this origin. */
function linksFrom(key: SourceLinkKey, origin: string): SourceLinks {
  return { link: (principal, slice, seconds) => key.url(origin, principal, slice, seconds) };
}
