/**
 * The HTTP server of `hyphae serve`: security defaults, health, metrics, the REST API and the
 * OpenAPI document, on one fastify instance. Returned ready but not listening; the CLI listens.
 */
import rateLimit from '@fastify/rate-limit';
import { createHash } from 'node:crypto';
import Fastify, { LogController, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { registerA2aRoutes } from '../a2a/index.js';
import { InvalidArgumentError, RateLimitedError } from '../core/errors.js';
import { registerMcpRoutes } from '../mcp/transports/http-routes.js';
import { createPushStream, type PushStream } from '../mcp/features/push/push-stream.js';
import type { ListenPushStreams } from '../mcp/features/push/listen-push-streams.js';
import type { MemoryFacade } from '../service/memory-facade.js';
import { apiKeyOf } from './api-key-auth.js';
import { toErrorReply } from './error-reply.js';
import { FailedAuthLimiter } from './failed-auth-limiter.js';
import { HEALTH_OPERATIONS, registerHealthRoutes, type ReadinessProbe } from './health-routes.js';
import type { HttpConfig } from './http-config.js';
import { pinoOptions, type HttpLoggerOptions } from './logger-options.js';
import type { HyphaeMetrics } from '../metrics/index.js';
import { METRICS_OPERATION, registerMetricsRoute } from './metrics-route.js';
import { buildOpenApiDocument, type PlainOperation } from './openapi-document.js';
import { isProbeRoute } from './probe-routes.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';
import { registerRestRoutes } from './rest/register-rest-routes.js';
import { REST_ROUTES } from './rest/rest-routes.js';
import { installSecurityHooks } from './security-hooks.js';

export interface HttpAppDeps {
  readonly facade: MemoryFacade;
  readonly config: HttpConfig;
  readonly readiness: readonly ReadinessProbe[];
  readonly metrics: HyphaeMetrics;
  /** `false` silences the logger (benchmarks). */
  readonly logger: HttpLoggerOptions | false;
  readonly version: string;
  /** Shared with the gRPC port, so guessing keys on both draws on one budget per address; default: one of its own. */
  readonly failedAuth?: FailedAuthLimiter;
  /** GET /mcp push stream settings (keep-alive interval, buffer bound); defaults in src/mcp/features/push/push-stream.ts. */
  readonly pushStream?: { readonly heartbeatMs?: number; readonly maxBufferedBytes?: number };
}

/** The app and its MCP push streams, whose open streams its owner may count. */
export interface HttpAppWithStreams {
  readonly app: FastifyInstance;
  readonly pushStream: PushStream;
  readonly listenStreams: ListenPushStreams;
}

const OPENAPI_OPERATION: PlainOperation = {
  method: 'GET',
  url: '/openapi.json',
  operationId: 'openApiDocument',
  summary: 'This OpenAPI 3.1 document',
  tag: 'operations',
  responses: { 200: { description: 'The document' } },
};

function rateLimitKey(request: FastifyRequest): string {
  const key = apiKeyOf(request);
  // Hashed so the limiter's memory never holds a clear key.
  return key === undefined ? `ip:${request.ip}` : `key:${createHash('sha256').update(key).digest('base64url').slice(0, 32)}`;
}

function trustProxyOption(trust: HttpConfig['trustProxy']): boolean | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return typeof trust === 'boolean' ? trust : [...trust];
}

export async function buildHttpApp(deps: HttpAppDeps): Promise<FastifyInstance> {
  return (await buildHttpAppWithStreams(deps)).app;
}

export async function buildHttpAppWithStreams(deps: HttpAppDeps): Promise<HttpAppWithStreams> {
  const { config, metrics } = deps;
  const app = Fastify({
    logger: deps.logger === false ? false : pinoOptions(deps.logger),
    bodyLimit: config.bodyLimitBytes,
    trustProxy: trustProxyOption(config.trustProxy),
    genReqId: requestIdOf,
    // Router-level refusals (a malformed URL, a path parameter beyond maxParamLength) answer the
    // documented error body like every other client error.
    frameworkErrors: (error, _request, reply) => {
      const refusal = error.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path parameter is too long' : 'malformed request URL';
      const mapped = toErrorReply(new InvalidArgumentError(refusal, [{ path: '(url)', message: refusal }]));
      void (reply as FastifyReply).code(mapped.status).headers(mapped.headers).send(mapped.body);
    },
    logController: new LogController({
      requestIdLogLabel: 'request_id',
      disableRequestLogging: (request) => isProbeRoute(request.routeOptions.url),
    }),
  });

  app.setErrorHandler(async (error, request, reply) => {
    const mapped = toErrorReply(error);
    if (mapped.serverFault) request.log.error({ err: error }, 'request failed');
    return reply.code(mapped.status).headers(mapped.headers).send(mapped.body);
  });
  app.setNotFoundHandler(async (request, reply) =>
    reply.code(404).send({ error: { code: 'NOT_FOUND', message: `no route ${request.method} ${request.url.split('?')[0]}` } }),
  );
  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
  });

  installSecurityHooks(app, config);
  const failedAuth = deps.failedAuth ?? new FailedAuthLimiter({ max: config.failedAuthMax, windowMs: config.rateLimitWindowMs });
  app.addHook('onRequest', async (request, reply) => {
    const retryAfter = isProbeRoute(request.routeOptions.url) ? null : failedAuth.retryAfterSeconds(request.ip);
    if (retryAfter === null) return;
    // Set here as well: /mcp's own error handler answers a JSON-RPC body and keeps the header.
    reply.header('retry-after', String(retryAfter));
    throw new RateLimitedError(retryAfter);
  });
  app.addHook('onResponse', async (request, reply) => {
    if (reply.statusCode === 401) failedAuth.recordFailure(request.ip);
  });
  await app.register(rateLimit, {
    // Installed below as a root hook rather than per route, so it runs before any route's own
    // authentication (/mcp has one): a flood of bad keys is limited before it reaches the database.
    global: false,
    max: config.rateLimitMax,
    timeWindow: config.rateLimitWindowMs,
    keyGenerator: rateLimitKey,
    allowList: (request) => isProbeRoute(request.routeOptions.url),
    errorResponseBuilder: (_request, context) => new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
  });
  app.addHook('onRequest', app.rateLimit());

  registerMetricsRoute(app, metrics, config.metricsBearerToken);
  registerHealthRoutes(app, { version: deps.version, probes: deps.readiness, timeoutMs: config.readinessTimeoutMs });
  registerRestRoutes(app, deps.facade, REST_ROUTES);
  const pushStream = createPushStream({ facade: deps.facade, metrics, ...deps.pushStream });
  // Open SSE streams would hold a graceful close up forever.
  app.addHook('preClose', async () => pushStream.closeAll());
  const { listenStreams } = registerMcpRoutes(app, { facade: deps.facade, pushStream: pushStream.handler, observer: metrics, pushDrops: metrics, serverVersion: deps.version });
  // Opt-in, and outside the OpenAPI document: A2A is its own protocol with its own card.
  if (config.a2a) registerA2aRoutes(app, { facade: deps.facade, version: deps.version, metrics });

  const document = buildOpenApiDocument({
    version: deps.version,
    routes: REST_ROUTES,
    plainOperations: [...HEALTH_OPERATIONS, METRICS_OPERATION, OPENAPI_OPERATION],
  });
  app.get('/openapi.json', async () => document);

  await app.ready();
  return { app, pushStream, listenStreams };
}
