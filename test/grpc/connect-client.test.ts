/**
 * The gRPC port through Connect-RPC's own Node clients, over gRPC, gRPC-Web and the Connect
 * protocol: calls and error details, WatchDiffs (live, resume by seq, deadline, cancellation,
 * quota, revocation — the server releases its subscription every time), reflection and health.
 */
import { fromBinary } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import { Code, ConnectError } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration, type KeyAdministration } from '../../src/auth/key-administration.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { Health, HealthCheckResponse_ServingStatus } from '../../src/grpc/gen/grpc/health/v1/health_pb.js';
import * as reflectionV1 from '../../src/grpc/gen/grpc/reflection/v1/reflection_pb.js';
import * as reflectionV1alpha from '../../src/grpc/gen/grpc/reflection/v1alpha/reflection_pb.js';
import { ErrorDetailSchema } from '../../src/grpc/gen/hyphae/v1/errors_pb.js';
import { MemoryService, type Diff } from '../../src/grpc/gen/hyphae/v1/memory_pb.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { waitFor } from '../support/wait-for.js';
import { connectClient, withKey, type Protocol } from '../support/grpc/connect-clients.js';
import { grpc, grpcJsClient } from '../support/grpc/grpc-js-client.js';
import { startGrpcReplica, type GrpcReplica } from './grpc-replica.js';

const INTEREST = 'rotate the signing keys of the billing service';

async function connectFailure(promise: Promise<unknown>): Promise<ConnectError> {
  try {
    await promise;
  } catch (error) {
    return ConnectError.from(error);
  }
  throw new Error('the call succeeded');
}

/** Collects a WatchDiffs stream in the background; `ended` settles with its error (undefined when it ended cleanly). */
function collect(stream: AsyncIterable<{ diff?: Diff }>): { diffs: Diff[]; ended: Promise<ConnectError | undefined> } {
  const diffs: Diff[] = [];
  const ended = (async (): Promise<ConnectError | undefined> => {
    try {
      for await (const message of stream) if (message.diff !== undefined) diffs.push(message.diff);
      return undefined;
    } catch (error) {
      return ConnectError.from(error);
    }
  })();
  return { diffs, ended };
}

describe('the gRPC port through Connect-RPC clients', () => {
  let embedder: Embedder;
  let server: GrpcReplica;
  let admin: KeyAdministration;
  let writerKey = '';
  let readerKey = '';

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    const db = await createMeshTestDb(embedder.dimension);
    server = await startGrpcReplica({ name: 'connect', db, bus: new MemoryBus(), embedder, facade: { maxStreamsPerKey: 2 } });
    admin = createKeyAdministration(db);
    writerKey = (await admin.createKey({ tenant: 'acme', agent: 'writer' })).key;
    readerKey = (await admin.createKey({ tenant: 'acme', agent: 'reader' })).key;
    const client = connectClient(MemoryService, server.grpc.address);
    await client.placeBeacon({ text: INTEREST, threshold: 0.5 }, withKey(readerKey));
  });

  afterAll(async () => {
    await server?.close();
    await embedder?.close();
  });

  async function storeMatching(suffix: string): Promise<string> {
    const client = connectClient(MemoryService, server.grpc.address);
    const { node } = await client.store({ content: `${INTEREST} ${suffix}`, cellType: 'Task' }, withKey(writerKey));
    return node?.nodeId ?? '';
  }

  for (const protocol of ['grpc', 'grpc-web', 'connect'] as Protocol[]) {
    it(`stores and recalls over ${protocol}, and carries the Hyphae code in the error details`, async () => {
      const client = connectClient(MemoryService, server.grpc.address, protocol);
      const { node } = await client.store({ content: `a ${protocol} note about deploy windows`, cellType: 'Fact', metadata: { via: protocol } }, withKey(writerKey));
      expect(node?.metadata).toEqual({ via: protocol });
      const { results, requestId } = await client.recall({ query: `a ${protocol} note about deploy windows`, k: 1 }, withKey(writerKey));
      expect(results[0]?.node?.nodeId).toBe(node?.nodeId);
      expect(requestId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      const missing = await connectFailure(client.getCell({ nodeId: '00000000-0000-4000-8000-000000000000' }, withKey(writerKey)));
      expect(missing.code).toBe(Code.NotFound);
      expect(missing.findDetails(ErrorDetailSchema)[0]?.code).toBe('NOT_FOUND');
      const invalid = await connectFailure(client.store({ content: '', cellType: 'Fact' }, withKey(writerKey)));
      expect(invalid.code).toBe(Code.InvalidArgument);
      expect(invalid.findDetails(ErrorDetailSchema)[0]?.issues.map((issue) => issue.path)).toEqual(['content']);
      expect((await connectFailure(client.listKeys({}))).code).toBe(Code.Unauthenticated);
    });
  }

  it('WatchDiffs streams new diffs live, and a resume after a seq replays exactly what followed it', async () => {
    const client = connectClient(MemoryService, server.grpc.address);
    const live = new AbortController();
    const first = collect(client.watchDiffs({}, { ...withKey(readerKey), signal: live.signal }));
    await waitFor(() => server.replica.facade.openLiveStreams === 1);
    const a = await storeMatching('first');
    await waitFor(() => first.diffs.length >= 1);
    expect(first.diffs[0]).toMatchObject({ op: 'created', nodeId: a });
    const seenSeq = first.diffs[0]?.seq ?? 0n;
    live.abort();
    expect((await first.ended)?.code).toBe(Code.Canceled);

    const b = await storeMatching('second');
    const c = await storeMatching('third');
    const resumed = new AbortController();
    const second = collect(client.watchDiffs({ afterSeq: seenSeq }, { ...withKey(readerKey), signal: resumed.signal }));
    await waitFor(() => second.diffs.filter((d) => d.op === 'created').length >= 2);
    const created = second.diffs.filter((d) => d.op === 'created');
    expect(created.map((d) => d.nodeId)).toEqual([b, c]);
    expect(second.diffs.every((d) => d.seq > seenSeq)).toBe(true);
    const seqs = second.diffs.map((d) => Number(d.seq));
    expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
    resumed.abort();
    await second.ended;
    await waitFor(() => server.replica.facade.openLiveStreams === 0);
  });

  it('a deadline ends the stream with DEADLINE_EXCEEDED and releases the subscription', async () => {
    const client = connectClient(MemoryService, server.grpc.address);
    const stream = collect(client.watchDiffs({}, { ...withKey(readerKey), timeoutMs: 300 }));
    expect((await stream.ended)?.code).toBe(Code.DeadlineExceeded);
    await waitFor(() => server.replica.facade.openLiveStreams === 0);
  });

  it('grpc-js cancellation and deadlines release the subscription too; the key quota counts only open streams', async () => {
    const raw = grpcJsClient(server.grpc.address);
    try {
      for (let round = 0; round < 3; round++) {
        const call = raw.stream('WatchDiffs', {}, readerKey);
        call.on('data', () => undefined);
        const ended = new Promise<grpc.ServiceError>((resolve) => call.on('error', (error) => resolve(error as grpc.ServiceError)));
        await waitFor(() => server.replica.facade.openLiveStreams === 1);
        call.cancel();
        expect((await ended).code).toBe(grpc.status.CANCELLED);
        await waitFor(() => server.replica.facade.openLiveStreams === 0);
      }
      const timed = raw.stream('WatchDiffs', {}, readerKey, { deadline: Date.now() + 300 });
      timed.on('data', () => undefined);
      const expired = await new Promise<grpc.ServiceError>((resolve) => timed.on('error', (error) => resolve(error as grpc.ServiceError)));
      expect(expired.code).toBe(grpc.status.DEADLINE_EXCEEDED);
      await waitFor(() => server.replica.facade.openLiveStreams === 0);
    } finally {
      raw.close();
    }
    // The quota (2 per key here) is full only while streams are open.
    const client = connectClient(MemoryService, server.grpc.address);
    const stop = new AbortController();
    const open = [collect(client.watchDiffs({}, { ...withKey(readerKey), signal: stop.signal })), collect(client.watchDiffs({}, { ...withKey(readerKey), signal: stop.signal }))];
    await waitFor(() => server.replica.facade.openLiveStreams === 2);
    const third = await collect(client.watchDiffs({}, withKey(readerKey))).ended;
    expect(third?.code).toBe(Code.ResourceExhausted);
    expect(third?.findDetails(ErrorDetailSchema)[0]?.code).toBe('RATE_LIMITED');
    stop.abort();
    await Promise.all(open.map((stream) => stream.ended));
    await waitFor(() => server.replica.facade.openLiveStreams === 0);
  });

  it('refuses a negative after_seq, and ends a stream whose key is revoked with UNAUTHENTICATED', async () => {
    const client = connectClient(MemoryService, server.grpc.address);
    const bad = await collect(client.watchDiffs({ afterSeq: -1n }, withKey(readerKey))).ended;
    expect(bad?.code).toBe(Code.InvalidArgument);
    const doomed = await admin.createKey({ tenant: 'acme', agent: 'reader' });
    const stream = collect(client.watchDiffs({}, withKey(doomed.key)));
    await waitFor(() => server.replica.facade.openLiveStreams === 1);
    await connectClient(MemoryService, server.grpc.address).revokeKey(
      { keyId: doomed.key_id },
      withKey((await admin.createKey({ tenant: 'acme', agent: 'root', roles: ['admin'] })).key),
    );
    expect((await stream.ended)?.code).toBe(Code.Unauthenticated);
    await waitFor(() => server.replica.facade.openLiveStreams === 0);
  });

  it('reflection (v1 and v1alpha) lists the services and serves the descriptors with their imports', async () => {
    for (const version of [reflectionV1, reflectionV1alpha]) {
      const client = connectClient(version.ServerReflection, server.grpc.address);
      async function* requests(): AsyncGenerator<{ messageRequest: { case: 'listServices'; value: string } | { case: 'fileContainingSymbol'; value: string } }> {
        yield { messageRequest: { case: 'listServices', value: '' } };
        yield { messageRequest: { case: 'fileContainingSymbol', value: 'hyphae.v1.MemoryService.WatchDiffs' } };
        yield { messageRequest: { case: 'fileContainingSymbol', value: 'hyphae.v1.NoSuchThing' } };
      }
      const answers = [];
      for await (const answer of client.serverReflectionInfo(requests())) answers.push(answer.messageResponse);
      const [services, file, missing] = answers;
      expect(services?.case).toBe('listServicesResponse');
      const names = services?.case === 'listServicesResponse' ? services.value.service.map((s) => s.name) : [];
      expect(names).toEqual(expect.arrayContaining(['hyphae.v1.MemoryService', 'grpc.health.v1.Health', 'grpc.reflection.v1.ServerReflection', 'grpc.reflection.v1alpha.ServerReflection']));
      expect(file?.case).toBe('fileDescriptorResponse');
      const descriptors = file?.case === 'fileDescriptorResponse' ? file.value.fileDescriptorProto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes)) : [];
      expect(descriptors.map((d) => d.name)).toEqual(['hyphae/v1/memory.proto', 'google/protobuf/struct.proto']);
      expect(descriptors[0]?.service[0]?.method.map((m) => m.name)).toContain('WatchDiffs');
      expect(missing).toMatchObject({ case: 'errorResponse', value: { errorCode: Code.NotFound } });
    }
  });

  it('health answers SERVING for the server and MemoryService, NOT_FOUND for another service, and Watch streams it', async () => {
    const health = connectClient(Health, server.grpc.address);
    expect((await health.check({ service: '' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect((await health.check({ service: 'hyphae.v1.MemoryService' })).status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect((await connectFailure(health.check({ service: 'no.such.Service' }))).code).toBe(Code.NotFound);
    const stop = new AbortController();
    for await (const status of health.watch({ service: '' }, { signal: stop.signal })) {
      expect(status.status).toBe(HealthCheckResponse_ServingStatus.SERVING);
      stop.abort();
      break;
    }
  });

  // Last: it closes the gRPC port (afterAll closes the rest).
  it('a draining server ends open WatchDiffs streams with UNAVAILABLE and releases them, then closes', async () => {
    const client = connectClient(MemoryService, server.grpc.address);
    const stream = collect(client.watchDiffs({}, withKey(readerKey)));
    await waitFor(() => server.replica.facade.openLiveStreams === 1);
    await server.grpc.close();
    const ended = await stream.ended;
    expect(ended?.code).toBe(Code.Unavailable);
    expect(ended?.findDetails(ErrorDetailSchema)[0]?.code).toBe('UNAVAILABLE');
    expect(server.replica.facade.openLiveStreams).toBe(0);
  });
});
