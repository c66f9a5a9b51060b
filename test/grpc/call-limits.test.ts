/**
 * The gRPC port's limits, as REST's: calls per key per window, and failed authentications per
 * client address — once over, even a valid key from that address is refused before the facade.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { errorDetailOf, grpc, grpcJsClient, type GrpcJsClient } from '../support/grpc/grpc-js-client.js';
import { startGrpcReplica, type GrpcReplica } from './grpc-replica.js';

async function code(promise: Promise<unknown>): Promise<grpc.ServiceError | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return error as grpc.ServiceError;
  }
}

describe('gRPC call limits', () => {
  let embedder: Embedder;
  let server: GrpcReplica;
  let client: GrpcJsClient;
  let first = '';
  let second = '';

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    const db = await createMeshTestDb(embedder.dimension);
    server = await startGrpcReplica({ name: 'limits', db, bus: new MemoryBus(), embedder }, { rateLimitPerMinute: 3, failedAuthPerMinute: 2 });
    const admin = createKeyAdministration(db);
    first = (await admin.createKey({ tenant: 'acme', agent: 'busy' })).key;
    second = (await admin.createKey({ tenant: 'acme', agent: 'calm' })).key;
    client = grpcJsClient(server.grpc.address);
  });

  afterAll(async () => {
    client?.close();
    await server?.close();
    await embedder?.close();
  });

  it('refuses a key over its call rate with RESOURCE_EXHAUSTED, and counts each key alone', async () => {
    for (let i = 0; i < 3; i++) expect(await code(client.unary('ListBeacons', {}, first))).toBeUndefined();
    const refused = await code(client.unary('ListBeacons', {}, first));
    expect(refused?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(errorDetailOf(refused as grpc.ServiceError)).toMatchObject({ code: 'RATE_LIMITED' });
    expect(await code(client.unary('ListBeacons', {}, second))).toBeUndefined();
  });

  it('after too many failed authentications from an address, refuses it before checking the key', async () => {
    for (let i = 0; i < 2; i++) expect((await code(client.unary('ListBeacons', {}, `hy_guess_${i}`)))?.code).toBe(grpc.status.UNAUTHENTICATED);
    const blocked = await code(client.unary('ListBeacons', {}, second));
    expect(blocked?.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
    expect(errorDetailOf(blocked as grpc.ServiceError)).toMatchObject({ code: 'RATE_LIMITED' });
  });
});
