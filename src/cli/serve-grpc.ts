/**
 * The gRPC port `hyphae serve` runs beside its HTTP port (HYPHAE_GRPC_PORT, 0 = off) over the
 * same process runtime: the same metered facade, limits, metrics registry and readiness probes,
 * and the HTTP port's failed-authentication limiter, so one budget covers both ports per address.
 */
import { describeLoggableError } from '../core/loggable-error.js';
import { resolveGrpcConfig } from '../grpc/grpc-config.js';
import { startGrpcServer, type GrpcServer } from '../grpc/grpc-server.js';
import { FailedAuthLimiter } from '../http/failed-auth-limiter.js';
import type { ProcessRuntime } from './process-runtime.js';

/** Failed authentications and calls are counted per minute, as on the HTTP port. */
const WINDOW_MS = 60_000;

export function createSharedFailedAuthLimiter(processRuntime: ProcessRuntime): FailedAuthLimiter {
  return new FailedAuthLimiter({ max: processRuntime.config.failedAuthPerMinute, windowMs: WINDOW_MS });
}

export async function startServeGrpc(processRuntime: ProcessRuntime, failedAuth: FailedAuthLimiter): Promise<GrpcServer | undefined> {
  const { config } = processRuntime;
  if (config.grpcPort === 0) return undefined;
  return startGrpcServer(
    {
      facade: processRuntime.facade,
      config: resolveGrpcConfig({
        readMaxBytes: config.bodyLimitBytes,
        rateLimitMax: config.rateLimitPerMinute,
        rateLimitWindowMs: WINDOW_MS,
        failedAuthMax: config.failedAuthPerMinute,
      }),
      readiness: processRuntime.readiness,
      metrics: processRuntime.metrics,
      failedAuth,
      onServerFault: (error) => process.stderr.write(`hyphae serve: gRPC call failed: ${describeLoggableError(error)}\n`),
    },
    { host: config.host, port: config.grpcPort },
  );
}
