/**
 * The gRPC port `hyphae serve` runs beside its HTTP port (HYPHAE_GRPC_PORT, 0 = off) over the
 * same composed process: the same metered facade, limits, metrics registry and readiness probes,
 * and the HTTP port's failed-authentication limiter, so one budget covers both ports per address.
 */
import type { HyphaeApp } from '../app/index.js';
import { RATE_LIMIT_WINDOW_MS } from '../core/config.js';
import { describeLoggableError } from '../core/loggable-error.js';
import { resolveGrpcConfig } from '../grpc/grpc-config.js';
import { startGrpcServer, type GrpcServer } from '../grpc/grpc-server.js';
import { FailedAuthLimiter } from '../surface-shared/index.js';

export function createSharedFailedAuthLimiter(hyphae: HyphaeApp): FailedAuthLimiter {
  return new FailedAuthLimiter({ max: hyphae.config.requests.failedAuthPerMinute, windowMs: RATE_LIMIT_WINDOW_MS });
}

export async function startServeGrpc(hyphae: HyphaeApp, failedAuth: FailedAuthLimiter): Promise<GrpcServer | undefined> {
  const { config } = hyphae;
  if (config.grpc.port === 0) return undefined;
  return startGrpcServer(
    {
      facade: hyphae.facade,
      config: resolveGrpcConfig(config.requests),
      readiness: hyphae.readiness,
      metrics: hyphae.metrics,
      failedAuth,
      onServerFault: (error) => process.stderr.write(`hyphae serve: gRPC call failed: ${describeLoggableError(error)}\n`),
    },
    { host: config.http.host, port: config.grpc.port },
  );
}
