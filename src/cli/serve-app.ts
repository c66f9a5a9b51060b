/**
 * The HTTP app `hyphae serve` runs over a process runtime (src/cli/process-runtime.ts), its
 * settings taken from the process configuration. Tests and benches that claim to run "what serve
 * runs" build it here too, rather than wiring their own.
 */
import type { FastifyInstance } from 'fastify';
import { buildHttpAppWithStreams, type HttpAppDeps, type HttpAppWithStreams } from '../http/build-http-app.js';
import { resolveHttpConfig } from '../http/http-config.js';
import { SERVER_VERSION } from '../mcp/server-version.js';
import type { ProcessRuntime } from './process-runtime.js';

export interface ServeAppOptions {
  /** Defaults to the configured log level on stdout. */
  readonly logger?: HttpAppDeps['logger'];
  /** The failed-authentication limiter shared with the gRPC port (serve-grpc.ts). */
  readonly failedAuth?: HttpAppDeps['failedAuth'];
  readonly liveStream?: HttpAppDeps['liveStream'];
}

export async function buildServeApp(processRuntime: ProcessRuntime, options: ServeAppOptions = {}): Promise<FastifyInstance> {
  return (await buildServeAppWithStreams(processRuntime, options)).app;
}

/** The same app, with its live-stream endpoints (tests count their open streams). */
export function buildServeAppWithStreams(processRuntime: ProcessRuntime, options: ServeAppOptions = {}): Promise<HttpAppWithStreams> {
  const { config } = processRuntime;
  return buildHttpAppWithStreams({
    facade: processRuntime.facade,
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
    readiness: processRuntime.readiness,
    metrics: processRuntime.metrics,
    logger: options.logger ?? { level: config.logLevel },
    version: SERVER_VERSION,
    ...(options.failedAuth === undefined ? {} : { failedAuth: options.failedAuth }),
    ...(options.liveStream === undefined ? {} : { liveStream: options.liveStream }),
  });
}
