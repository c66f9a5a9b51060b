/** Two replicas on one real PostgreSQL and one real nats-server, as two `hyphae serve` behind a load balancer. */
import { createEmbedder } from '../../../src/embed/create-embedder.js';
import type { Embedder } from '../../../src/embed/embedder.js';
import { NatsBus } from '../../../src/mesh/nats-bus.js';
import { startMeshReplica } from '../mesh/mesh-replica.js';
import type { MeshReplica } from '../mesh/mesh-replica.js';
import { startSharedDatabase } from '../shared-database.js';
import { startNatsServer } from '../nats-server.js';

export interface ReplicaPair {
  readonly a: MeshReplica;
  readonly b: MeshReplica;
  close(): Promise<void>;
}

/** Settings per replica, as `serve` reads them (e.g. HYPHAE_MCP_CHANNEL=off on one of them). */
export interface ReplicaPairOptions {
  readonly env?: { readonly a?: Readonly<Record<string, string>>; readonly b?: Readonly<Record<string, string>> };
}

export async function startReplicaPair(options: ReplicaPairOptions = {}): Promise<ReplicaPair> {
  const nats = await startNatsServer();
  const embedder: Embedder = await createEmbedder({ kind: 'hash' });
  const database = await startSharedDatabase(embedder.dimension);
  const replica = async (name: string, env: Readonly<Record<string, string>> = {}): Promise<MeshReplica> =>
    startMeshReplica({
      env,
      name,
      db: await database.connect(4),
      bus: await NatsBus.connect({ servers: nats.url, name, reconnectTimeWaitMs: 100, publishTimeoutMs: 10_000 }),
      embedder,
      // No refresh tick any assertion could wait for: delivery comes from the bus.
      refreshIntervalMs: 600_000,
    });
  const a = await replica('replica-a', options.env?.a);
  const b = await replica('replica-b', options.env?.b);
  return {
    a,
    b,
    async close(): Promise<void> {
      await Promise.all([a.close(), b.close()]);
      await database.close();
      await embedder.close();
      await nats.stop();
    },
  };
}
