/**
 * The HTTP app `hyphae serve` runs over the composed process (src/app), its settings taken from
 * the process configuration. Tests and benches that claim to run "what serve
 * runs" build it here too, rather than wiring their own.
 */
import type { FastifyInstance } from 'fastify';
import type { HyphaeApp } from '../app/index.js';
import { buildHttpAppWithStreams, type HttpAppDeps, type HttpAppWithStreams } from '../http/build-http-app.js';
import { resolveHttpConfig } from '../http/http-config.js';
import { SERVER_VERSION } from '../mcp/protocol/server-version.js';

export interface ServeAppOptions {
  /** Defaults to the configured log level on stdout. */
  readonly logger?: HttpAppDeps['logger'];
  /** The failed-authentication limiter shared with the gRPC port (serve-grpc.ts). */
  readonly failedAuth?: HttpAppDeps['failedAuth'];
  readonly pushStream?: HttpAppDeps['pushStream'];
}

export async function buildServeApp(hyphae: HyphaeApp, options: ServeAppOptions = {}): Promise<FastifyInstance> {
  return (await buildServeAppWithStreams(hyphae, options)).app;
}

/** The same app, with its MCP push streams (tests count their open streams). */
export function buildServeAppWithStreams(hyphae: HyphaeApp, options: ServeAppOptions = {}): Promise<HttpAppWithStreams> {
  const { config } = hyphae;
  return buildHttpAppWithStreams({
    facade: hyphae.facade,
    config: resolveHttpConfig({
      allowedHosts: config.allowedHosts,
      allowedOrigins: config.allowedOrigins,
      bodyLimitBytes: config.bodyLimitBytes,
      rateLimitMax: config.rateLimitPerMinute,
      rateLimitWindowMs: 60_000,
      failedAuthMax: config.failedAuthPerMinute,
      trustProxy: config.trustProxy,
      metricsBearerToken: config.metricsToken,
      a2a: config.a2a,
    }),
    readiness: hyphae.readiness,
    metrics: hyphae.metrics,
    logger: options.logger ?? { level: config.logLevel },
    version: SERVER_VERSION,
    ...(options.failedAuth === undefined ? {} : { failedAuth: options.failedAuth }),
    ...(options.pushStream === undefined ? {} : { pushStream: options.pushStream }),
  });
}
