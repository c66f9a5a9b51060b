/**
 * A replica (test/support/mesh/mesh-replica.ts: facade, outbox relay, live feed, HTTP) with the gRPC
 * surface of `hyphae serve` on its own loopback port, counting into its own metrics registry.
 */
import { RATE_LIMIT_WINDOW_MS } from '../../src/core/config.js';
import { FailedAuthLimiter } from '../../src/surface-shared/index.js';
import { createHyphaeMetrics, type HyphaeMetrics } from '../../src/metrics/index.js';
import { resolveGrpcConfig, type GrpcConfig } from '../../src/grpc/grpc-config.js';
import { startGrpcServer, type GrpcServer } from '../../src/grpc/grpc-server.js';
import { startMeshReplica, type MeshReplica, type MeshReplicaOptions } from '../support/mesh/mesh-replica.js';

export interface GrpcReplica {
  readonly replica: MeshReplica;
  readonly grpc: GrpcServer;
  readonly metrics: HyphaeMetrics;
  readonly faults: unknown[];
  close(): Promise<void>;
}

export async function withGrpc(replica: MeshReplica, config: Partial<GrpcConfig> = {}): Promise<GrpcReplica> {
  const metrics = createHyphaeMetrics();
  const faults: unknown[] = [];
  const resolved = resolveGrpcConfig({ failedAuthPerMinute: 1_000_000, ...config });
  const grpc = await startGrpcServer(
    {
      facade: replica.facade,
      config: resolved,
      readiness: [{ name: 'database', check: async () => void (await replica.db.query('SELECT 1')) }],
      metrics,
      failedAuth: new FailedAuthLimiter({ max: resolved.failedAuthPerMinute, windowMs: RATE_LIMIT_WINDOW_MS }),
      onServerFault: (error) => faults.push(error),
    },
    { host: '127.0.0.1', port: 0 },
  );
  return {
    replica,
    grpc,
    metrics,
    faults,
    async close(): Promise<void> {
      await grpc.close();
      await replica.close();
    },
  };
}

export async function startGrpcReplica(options: MeshReplicaOptions, config: Partial<GrpcConfig> = {}): Promise<GrpcReplica> {
  return withGrpc(await startMeshReplica(options), config);
}
