/**
 * The A2A surface on the HTTP app (opt-in, HYPHAE_A2A=1): `GET /.well-known/agent-card.json` and the
 * JSON-RPC endpoint `POST /a2a`, served by the SDK's JsonRpcTransportHandler over fastify (the SDK
 * ships only an express adapter). Every call is authenticated first, from `x-hyphae-key` or an OAuth bearer token; the
 * app's Host/Origin checks, body limit, rate limits and request metrics apply as to any route.
 * Streaming methods answer Server-Sent Events; a JSON-RPC error before the first event is a plain
 * JSON answer.
 */
import { AgentCard, formatSSEErrorEvent, formatSSEEvent } from '@a2a-js/sdk';
import {
  DefaultExecutionEventBusManager,
  DefaultRequestHandler,
  JsonRpcTransportHandler,
  validateVersion,
  type ServerCallContext,
} from '@a2a-js/sdk/server';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { UnauthenticatedError, isHyphaeError } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import type { MemoryFacade } from '../service/memory-facade.js';
import { API_KEY_HEADER, AUTHORIZATION_HEADER, acceptsAccessTokens, authenticateCredential, bodyTooLargeError, credentialOf, missingCredentialError, rememberRefusal, LiveStream, SSE_HEARTBEAT, startSseStream, SSE_HEARTBEAT_MS, SSE_MAX_BUFFERED_BYTES } from '../surface-shared/index.js';
import {
  RPC_INTERNAL_ERROR,
  RPC_INVALID_PARAMS,
  RPC_INVALID_REQUEST,
  RPC_PARSE_ERROR,
  facadeErrorReply,
  recordedFacadeError,
  type A2aErrorReply,
  type A2aRpcError,
} from './a2a-errors.js';
import { LegacyJsonRpcTransportHandler } from '@a2a-js/sdk/compat/v0_3/server';
import { A2A_PATH, AGENT_CARD_URL_PATH, LEGACY_PROTOCOL_VERSION, agentCard, legacyAgentCard, type CardOAuth } from './agent-card.js';
import { callContextFor, ownerOf } from './caller-identity.js';
import { BoundedTaskStore } from './bounded-task-store.js';
import { MemoryRequestHandler } from './memory-request-handler.js';
import { SubscribeExecutor, type SubscribeMetrics } from './subscribe-executor.js';

export interface A2aRouteDeps {
  readonly facade: Pick<MemoryFacade, 'authenticate' | 'authenticateBearer' | 'store' | 'recall' | 'subscribeDiffs'>;
  readonly version: string;
  readonly metrics?: SubscribeMetrics;
  readonly log?: (message: string) => void;
  /** Keep-alive comment interval of streams; default 15 s. */
  readonly heartbeatMs?: number;
  /** A stream whose unsent bytes exceed this stops being written (and its subscribe task ends); default 1 MiB. */
  readonly maxBufferedBytes?: number;
  /** Finished tasks each agent's GetTask/ListTasks still see; older ones are dropped. Default 100. */
  readonly maxFinishedTasksPerAgent?: number;
  /** With OAuth configured, the card offers a bearer token beside the API key. */
  readonly oauth?: CardOAuth;
}

export interface A2aRoutes {
  /** Ends every subscribe task, so open streams let a graceful close finish. */
  closeAll(): void;
}

type RpcId = string | number | null;
const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
const PARSE_FAILURES = new Set(['FST_ERR_CTP_EMPTY_JSON_BODY', 'FST_ERR_CTP_INVALID_JSON_BODY']);

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function rpcIdOf(body: unknown): RpcId {
  const id = isPlainObject(body) ? body.id : undefined;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? id : null;
}

function headerValue(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function sendRpcError(reply: FastifyReply, id: RpcId, mapped: A2aErrorReply): FastifyReply {
  if (mapped.retryAfterSeconds !== undefined) reply.header('retry-after', String(mapped.retryAfterSeconds));
  return reply.code(mapped.status).header('content-type', JSON_CONTENT_TYPE).send({ jsonrpc: '2.0', id, error: mapped.error });
}

function plain(status: number, code: number, message: string): A2aErrorReply {
  return { status, error: { code, message } };
}

/** The A2A tenant is the key's tenant: a request may repeat it, never name another. */
function withoutTenant(body: unknown, principal: Principal): { body: unknown } | { refusal: A2aErrorReply } {
  if (!isPlainObject(body) || !isPlainObject(body.params) || !Object.hasOwn(body.params, 'tenant')) return { body };
  const { tenant, ...params } = body.params;
  if (tenant !== '' && tenant !== principal.tenantId) {
    return { refusal: plain(200, RPC_INVALID_PARAMS, 'params.tenant must be empty or your API key’s tenant: identity comes from the key') };
  }
  return { body: { ...body, params } };
}

/** A2A 1.0 says a request without A2A-Version is 0.3. */
function isLegacy(version: string | undefined): boolean {
  return version === undefined || version.trim() === '' || version.trim() === LEGACY_PROTOCOL_VERSION;
}

function isStream<T>(value: unknown): value is AsyncGenerator<T, void, undefined> {
  return typeof value === 'object' && value !== null && Symbol.asyncIterator in value;
}

export function registerA2aRoutes(app: FastifyInstance, deps: A2aRouteDeps): A2aRoutes {
  const log = deps.log ?? ((message: string): void => app.log.error(message));
  const heartbeat = { everyMs: deps.heartbeatMs ?? SSE_HEARTBEAT_MS, frame: SSE_HEARTBEAT };
  const maxBufferedBytes = deps.maxBufferedBytes ?? SSE_MAX_BUFFERED_BYTES;
  // The SDK checks versions and capabilities against this card; callers get one naming their URL.
  const baseCard = agentCard('', deps.version);
  const taskStore = new BoundedTaskStore(deps.maxFinishedTasksPerAgent);
  const executor = new SubscribeExecutor(deps.metrics);
  const tasks = new DefaultRequestHandler(baseCard, taskStore, executor, new DefaultExecutionEventBusManager(ownerOf));
  const handler = new MemoryRequestHandler(deps.facade, tasks, taskStore);
  const transport = new JsonRpcTransportHandler(handler);
  const legacyTransport = new LegacyJsonRpcTransportHandler(handler);
  const principals = new WeakMap<FastifyRequest, Principal>();
  app.addHook('preClose', async () => executor.closeAll());

  /** The SDK's error, or the facade's when one caused it; an internal error says nothing of its cause. */
  function errorFor(context: ServerCallContext, error: A2aRpcError): A2aErrorReply {
    const facadeError = recordedFacadeError(context);
    if (facadeError !== undefined) return facadeErrorReply(facadeError);
    if (error.code === RPC_INTERNAL_ERROR) {
      log('a2a call failed with an internal error');
      return plain(500, RPC_INTERNAL_ERROR, 'internal error');
    }
    return { status: 200, error };
  }

  async function authenticate(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const credential = credentialOf(request.headers[API_KEY_HEADER], request.headers[AUTHORIZATION_HEADER]);
    if (credential === undefined) {
      await sendRpcError(reply, null, facadeErrorReply(missingCredentialError(acceptsAccessTokens(request))));
      return;
    }
    try {
      principals.set(request, await authenticateCredential(deps.facade, credential));
    } catch (error) {
      rememberRefusal(request, error);
      await sendRpcError(reply, null, facadeErrorReply(error));
    }
  }

  function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
    if (isHyphaeError(error)) return sendRpcError(reply, null, facadeErrorReply(error));
    const status = typeof error.statusCode === 'number' ? error.statusCode : 500;
    if (status === 400 && (PARSE_FAILURES.has(error.code) || error instanceof SyntaxError)) {
      return sendRpcError(reply, null, plain(400, RPC_PARSE_ERROR, 'Parse error: the body is not valid JSON'));
    }
    if (status === 413) return sendRpcError(reply, null, plain(413, RPC_INVALID_REQUEST, bodyTooLargeError(request).message));
    if (status === 415) return sendRpcError(reply, null, plain(415, RPC_INVALID_REQUEST, 'Content-Type must be application/json'));
    if (status >= 400 && status < 500) return sendRpcError(reply, null, plain(status, RPC_INVALID_REQUEST, 'Invalid Request'));
    log(`a2a route failed: ${error.name}`);
    return sendRpcError(reply, null, plain(500, RPC_INTERNAL_ERROR, 'internal error'));
  }

  app.get(AGENT_CARD_URL_PATH, async (request, reply) => {
    const baseUrl = `${request.protocol}://${request.host}`;
    const card = isLegacy(headerValue(request, 'a2a-version')) ? legacyAgentCard(baseUrl, deps.version, deps.oauth) : AgentCard.toJSON(agentCard(baseUrl, deps.version, deps.oauth));
    return reply.header('content-type', JSON_CONTENT_TYPE).header('vary', 'A2A-Version').send(card);
  });

  app.post(A2A_PATH, { onRequest: authenticate, errorHandler }, async (request, reply) => {
    const principal = principals.get(request);
    const id = rpcIdOf(request.body);
    if (principal === undefined) return sendRpcError(reply, id, facadeErrorReply(new UnauthenticatedError()));
    const checked = withoutTenant(request.body, principal);
    if ('refusal' in checked) return sendRpcError(reply, id, checked.refusal);
    const context = callContextFor(principal, headerValue(request, 'a2a-version'));
    try {
      validateVersion(context.requestedVersion, baseCard, 'JSONRPC');
    } catch (error) {
      return sendRpcError(reply, id, { status: 200, error: JsonRpcTransportHandler.mapToJSONRPCError(error) });
    }
    const body = checked.body as Record<string, unknown>;
    const outcome = isLegacy(context.requestedVersion) ? await legacyTransport.handle(body, context) : await transport.handle(body, context);
    if (!isStream<{ id: RpcId }>(outcome)) {
      if (outcome.error === undefined) return reply.code(200).header('content-type', JSON_CONTENT_TYPE).send(outcome);
      return sendRpcError(reply, outcome.id, errorFor(context, outcome.error as A2aRpcError));
    }
    let first: IteratorResult<{ id: RpcId }, void>;
    try {
      first = await outcome.next();
    } catch (error) {
      return sendRpcError(reply, id, errorFor(context, JsonRpcTransportHandler.mapToJSONRPCError(error)));
    }
    await streamEvents(reply, context, id, outcome, first);
    return reply;
  });

  async function streamEvents(
    reply: FastifyReply,
    context: ServerCallContext,
    id: RpcId,
    events: AsyncGenerator<{ id: RpcId }, void, undefined>,
    first: IteratorResult<{ id: RpcId }, void>,
  ): Promise<void> {
    reply.hijack();
    const res = reply.raw;
    let finished = false;
    // The task ends with its stream; the loop below still drains it so its final state is stored.
    const stream = new LiveStream({
      heartbeat,
      maxBufferedBytes,
      onClose: () => {
        if (!finished) executor.endOpenedBy(context);
      },
    });
    // A POST's request stream is already consumed (and auto-destroyed): the socket says whether the client is there.
    if (!res.destroyed && res.socket?.destroyed !== true) startSseStream(reply, stream);
    else stream.close();
    try {
      for (let next = first; next.done !== true; next = await events.next()) stream.send(formatSSEEvent(next.value));
    } catch (error) {
      stream.send(formatSSEErrorEvent({ jsonrpc: '2.0', id, error: errorFor(context, JsonRpcTransportHandler.mapToJSONRPCError(error)).error }));
    } finally {
      finished = true;
      stream.close();
      if (!res.writableEnded) res.end();
    }
  }

  return { closeAll: (): void => executor.closeAll() };
}
