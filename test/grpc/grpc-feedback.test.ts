/**
 * Feedback over the gRPC port (docs/grpc.md, docs/feedback.md): Recall names its answer, and
 * SubmitFeedback answers what POST /v1/feedback answers, through the same facade, with the same
 * error codes — another tenant's request_id as NOT_FOUND like an unknown one.
 */
import { randomUUID } from 'node:crypto';
import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { ErrorDetailSchema } from '../../src/grpc/gen/hyphae/v1/errors_pb.js';
import { MemoryService } from '../../src/grpc/gen/hyphae/v1/memory_pb.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { connectClient, withKey } from '../support/grpc/connect-clients.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { startGrpcReplica, type GrpcReplica } from './grpc-replica.js';

async function failure(promise: Promise<unknown>): Promise<{ status: Code; code: string | undefined; details: unknown }> {
  try {
    await promise;
  } catch (error) {
    const failed = ConnectError.from(error);
    const detail = failed.findDetails(ErrorDetailSchema)[0];
    return { status: failed.code, code: detail?.code, details: detail?.details };
  }
  throw new Error('the call succeeded');
}

describe('feedback over the gRPC port', () => {
  let embedder: Embedder;
  let server: GrpcReplica;
  let writerKey = '';
  let otherKey = '';

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    const db = await createMeshTestDb(embedder.dimension);
    server = await startGrpcReplica({ name: 'feedback', db, bus: new MemoryBus(), embedder });
    const admin = createKeyAdministration(db);
    writerKey = (await admin.createKey({ tenant: 'acme', agent: 'writer' })).key;
    otherKey = (await admin.createKey({ tenant: 'globex', agent: 'writer' })).key;
  });

  afterAll(async () => {
    await server?.close();
    await embedder?.close();
  });

  it('judges a Recall answer by its request_id, and refuses as REST does', async () => {
    const client = connectClient(MemoryService, server.grpc.address);
    const { node } = await client.store({ content: 'the kiln cools for six hours', cellType: 'Fact' }, withKey(writerKey));
    const { requestId, results } = await client.recall({ query: 'how long does the kiln cool', k: 3 }, withKey(writerKey));
    const rank = results.findIndex((hit) => hit.node?.nodeId === node?.nodeId) + 1;
    const receipt = await client.submitFeedback({ requestId, rating: 'positive', groundTruthIds: [node?.nodeId ?? ''], metadata: { run: 'grpc' } }, withKey(writerKey));
    expect(receipt).toMatchObject({ requestId, label: 'agent', judged: true, truthRank: rank });
    const textOnly = await client.submitFeedback({ requestId, feedback: 'fine' }, withKey(writerKey));
    expect(textOnly.judged).toBe(false);
    expect(textOnly.truthRank).toBeUndefined();

    const empty = await failure(client.submitFeedback({ requestId, rating: 'negative' }, withKey(writerKey)));
    expect(empty).toMatchObject({ status: Code.InvalidArgument, code: 'INVALID_ARGUMENT' });
    expect(empty.details).toMatchObject({ reason: 'feedback_empty' });
    const unknown = await failure(client.submitFeedback({ requestId: randomUUID(), feedback: 'missed' }, withKey(otherKey)));
    const foreign = await failure(client.submitFeedback({ requestId, feedback: 'missed' }, withKey(otherKey)));
    expect(unknown).toMatchObject({ status: Code.NotFound, code: 'NOT_FOUND' });
    expect(foreign.status).toBe(unknown.status);
    expect(foreign.code).toBe(unknown.code);
  });
});
