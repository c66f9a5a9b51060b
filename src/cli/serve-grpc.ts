/**
 * The gRPC port `hyphae serve` runs beside its HTTP port (HYPHAE_GRPC_PORT, 0 = off) over the
 * same composed process: the same metered facade, limits, metrics registry and readiness probes,
 * and the HTTP port's failed-authentication limiter, so one budget covers both ports per address.
 */
import type { HyphaeApp } from '../app/index.js';
import { describeLoggableError } from '../core/loggable-error.js';
import { resolveGrpcConfig } from '../grpc/grpc-config.js';
import { startGrpcServer, type GrpcServer } from '../grpc/grpc-server.js';
import { FailedAuthLimiter } from '../surface-shared/index.js';

/** Failed authentications and calls are counted per minute, as on the HTTP port. */
const WINDOW_MS = 60_000;

export function createSharedFailedAuthLimiter(hyphae: HyphaeApp): FailedAuthLimiter {
  return new FailedAuthLimiter({ max: hyphae.config.failedAuthPerMinute, windowMs: WINDOW_MS });
}

export async function startServeGrpc(hyphae: HyphaeApp, failedAuth: FailedAuthLimiter): Promise<GrpcServer | undefined> {
  const { config } = hyphae;
  if (config.grpcPort === 0) return undefined;
  return startGrpcServer(
    {
      facade: hyphae.facade,
      config: resolveGrpcConfig({
        readMaxBytes: config.bodyLimitBytes,
        rateLimitMax: config.rateLimitPerMinute,
        rateLimitWindowMs: WINDOW_MS,
        failedAuthMax: config.failedAuthPerMinute,
      }),
      readiness: hyphae.readiness,
      metrics: hyphae.metrics,
      failedAuth,
      onServerFault: (error) => process.stderr.write(`hyphae serve: gRPC call failed: ${describeLoggableError(error)}\n`),
    },
    { host: config.host, port: config.grpcPort },
  );
}
