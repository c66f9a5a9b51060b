/**
 * The HTTP server of `hyphae serve`: security defaults, health, metrics, the REST API and the
 * OpenAPI document, on one fastify instance, plus the routes other surfaces mount on it (the serve
 * composition mounts MCP and A2A: src/cli/serve-app.ts). Returned ready but not listening; the CLI
 * listens.
 */
import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { RATE_LIMIT_WINDOW_MS } from '../core/config.js';
import { InvalidArgumentError, RateLimitedError } from '../core/errors.js';
import type { HyphaeMetrics } from '../metrics/index.js';
import type { MemoryFacade } from '../service/memory-facade.js';
import {
  API_KEY_HEADER,
  AUTHORIZATION_HEADER,
  FailedAuthLimiter,
  bodyTooLargeError,
  credentialDigest,
  credentialOf,
  isBodyTooLarge,
  markAccessTokensAccepted,
  rememberRefusal,
} from '../surface-shared/index.js';
import type { SourceLinkKey } from '../surface-shared/index.js';
import { toErrorReply } from './error-reply.js';
import type { ReadinessCheck } from '../core/readiness.js';
import { HEALTH_OPERATIONS, registerHealthRoutes } from './health-routes.js';
import type { HttpConfig } from './http-config.js';
import { PROTECTED_RESOURCE_OPERATIONS, installOAuthResource } from './oauth-resource.js';
import { pinoOptions, type HttpLoggerOptions } from './logger-options.js';
import { METRICS_OPERATION, registerMetricsRoute } from './metrics-route.js';
import { buildOpenApiDocument, type PlainOperation } from './openapi-document.js';
import { isProbeRoute } from './probe-routes.js';
import { REQUEST_ID_HEADER, requestIdOf } from './request-id.js';
import { requestLogController } from './request-log.js';
import { PORTABILITY_OPERATIONS, registerPortabilityRoutes } from './rest/admin-portability-routes.js';
import { registerEventStreamRoutes } from './rest/event-stream-route.js';
import { EVENT_STREAM_ROUTES } from './rest/gossip-stream-route.js';
import { registerRestRoutes } from './rest/register-rest-routes.js';
import { REST_ROUTES } from './rest/rest-routes.js';
import { ROOT_OPERATION, registerRootRoute } from './root-route.js';
import { installSecurityHooks } from './security-hooks.js';

export interface HttpAppDeps {
  readonly facade: MemoryFacade;
  readonly config: HttpConfig;
  readonly readiness: readonly ReadinessCheck[];
  readonly metrics: HyphaeMetrics;
  /** `false` silences the logger (benchmarks). */
  readonly logger: HttpLoggerOptions | false;
  readonly version: string;
  /** Shared with the gRPC port, so guessing keys on both draws on one budget per address; default: one of its own. */
  readonly failedAuth?: FailedAuthLimiter;
  /** Other surfaces' routes, mounted after REST and before the app is ready (outside the OpenAPI document). */
  readonly routes?: readonly MountRoutes[];
  /** Verifies signed source links on the slice route (hydradb_inspect's url mode); absent: that route takes keys only. */
  readonly sourceLinks?: SourceLinkKey;
}

/** Mounts one surface's routes (and its close hooks) on the app. */
export type MountRoutes = (app: FastifyInstance) => void;

const OPENAPI_OPERATION: PlainOperation = {
  method: 'GET',
  url: '/openapi.json',
  operationId: 'openApiDocument',
  summary: 'This OpenAPI 3.1 document',
  tag: 'operations',
  responses: { 200: { description: 'The document' } },
};

/**
 * Per credential — a key however it is sent, an access token only with OAuth on (/metrics has a
 * bearer token of its own) and by what it decodes to, not how it is spelt — else per address.
 */
function rateLimitKey(oauth: boolean): (request: FastifyRequest) => string {
  return (request) => {
    const credential = credentialOf(request.headers[API_KEY_HEADER], request.headers[AUTHORIZATION_HEADER]);
    if (credential === undefined || (credential.kind === 'bearer' && !oauth)) return `ip:${request.ip}`;
    return `key:${credentialDigest(credential)}`;
  };
}

function trustProxyOption(trust: HttpConfig['trustProxy']): false | string[] | ((address: string, hop: number) => boolean) {
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return trust === false ? false : [...trust];
}

export async function buildHttpApp(deps: HttpAppDeps): Promise<FastifyInstance> {
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
    logController: requestLogController(deps.logger === false ? 'info' : (deps.logger.requests ?? 'info')),
  });

  app.setErrorHandler(async (error, request, reply) => {
    rememberRefusal(request, error);
    const mapped = toErrorReply(isBodyTooLarge(error) ? bodyTooLargeError(request) : error);
    if (mapped.serverFault) request.log.error({ err: error }, 'request failed');
    return reply.code(mapped.status).headers(mapped.headers).send(mapped.body);
  });
  app.setNotFoundHandler(async (request, reply) =>
    reply.code(404).send({ error: { code: 'NOT_FOUND', message: `no route ${request.method} ${request.url.split('?')[0]}` } }),
  );
  const oauth = config.oauth !== undefined;
  app.addHook('onRequest', async (request, reply) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    if (oauth) markAccessTokensAccepted(request);
  });

  installSecurityHooks(app, config);
  const failedAuth = deps.failedAuth ?? new FailedAuthLimiter({ max: config.failedAuthPerMinute, windowMs: RATE_LIMIT_WINDOW_MS });
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
    max: config.rateLimitPerMinute,
    timeWindow: RATE_LIMIT_WINDOW_MS,
    keyGenerator: rateLimitKey(oauth),
    allowList: (request) => isProbeRoute(request.routeOptions.url),
    errorResponseBuilder: (_request, context) => new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
  });
  app.addHook('onRequest', app.rateLimit());

  registerMetricsRoute(app, metrics, config.metricsToken);
  registerHealthRoutes(app, { version: deps.version, probes: deps.readiness, timeoutMs: config.readinessTimeoutMs });
  registerRestRoutes(app, deps.facade, REST_ROUTES, deps.sourceLinks);
  registerPortabilityRoutes(app, deps.facade);
  const eventStreams = registerEventStreamRoutes(app, deps.facade, EVENT_STREAM_ROUTES);
  // Open SSE streams would hold a graceful close up forever.
  app.addHook('preClose', async () => eventStreams.closeAll());
  if (config.oauth !== undefined) installOAuthResource(app, config.oauth);
  for (const mount of deps.routes ?? []) mount(app);

  const document = buildOpenApiDocument({
    version: deps.version,
    routes: REST_ROUTES,
    rawOperations: PORTABILITY_OPERATIONS,
    streamRoutes: EVENT_STREAM_ROUTES,
    plainOperations: [ROOT_OPERATION, ...HEALTH_OPERATIONS, METRICS_OPERATION, OPENAPI_OPERATION, ...(config.oauth === undefined ? [] : PROTECTED_RESOURCE_OPERATIONS)],
    ...(config.oauth === undefined ? {} : { bearerTokens: true }),
  });
  app.get('/openapi.json', async () => document);
  registerRootRoute(app, deps.version);

  await app.ready();
  return app;
}
