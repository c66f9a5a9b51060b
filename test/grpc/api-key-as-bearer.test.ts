/**
 * An API key in gRPC metadata as `authorization: Bearer <key>`, as well as `x-hyphae-key`: told from
 * an OAuth access token by its `hy_` prefix. One key counts one call rate however it is sent, and a
 * call with neither is told both forms.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { MemoryService } from '../../src/grpc/gen/hyphae/v1/memory_pb.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { connectClient, withKey } from '../support/grpc/connect-clients.js';
import { startGrpcReplica, type GrpcReplica } from './grpc-replica.js';

async function failure(promise: Promise<unknown>): Promise<ConnectError | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return ConnectError.from(error);
  }
}

const bearer = (key: string): { headers: Record<string, string> } => ({ headers: { authorization: `Bearer ${key}` } });

describe('an API key as a gRPC bearer', () => {
  let embedder: Embedder;
  let server: GrpcReplica;
  let key = '';

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    const db = await createMeshTestDb(embedder.dimension);
    server = await startGrpcReplica({ name: 'bearer', db, bus: new MemoryBus(), embedder }, { rateLimitPerMinute: 4, failedAuthPerMinute: 1_000 });
    key = (await createKeyAdministration(db).createKey({ tenant: 'acme', agent: 'bearer' })).key;
  });

  afterAll(async () => {
    await server?.close();
    await embedder?.close();
  });

  it('authenticates `authorization: Bearer <key>` metadata as the key', async () => {
    const client = connectClient(MemoryService, server.grpc.address);
    const { node } = await client.store({ content: 'bearer keys reach the gRPC port', cellType: 'Fact' }, bearer(key));
    expect(node?.sourceAgent).toBe('bearer');
  });

  it('counts one call rate for the key whichever way it is sent', async () => {
    const client = connectClient(MemoryService, server.grpc.address);
    // The store above took one call of four.
    expect(await failure(client.listBeacons({}, withKey(key)))).toBeUndefined();
    expect(await failure(client.listBeacons({}, bearer(key)))).toBeUndefined();
    expect(await failure(client.listBeacons({}, withKey(key)))).toBeUndefined();
    expect((await failure(client.listBeacons({}, bearer(key))))?.code).toBe(Code.ResourceExhausted);
  });

  it('names both forms when a call carries neither', async () => {
    const client = connectClient(MemoryService, server.grpc.address);
    const refused = await failure(client.listBeacons({}, { headers: { authorization: 'Basic dXNlcjpwYXNz' } }));
    expect(refused?.code).toBe(Code.Unauthenticated);
    expect(refused?.rawMessage).toContain('"x-hyphae-key: <key>" or "Authorization: Bearer <key>"');
  });
});
