/**
 * WatchDiffs across two replicas (one native PostgreSQL with pgvector, one real nats-server, each
 * replica with its own pool, bus connection, relay, live feed and gRPC port): a diff written
 * through replica A reaches a grpc-js stream held on replica B; a client that drops and resumes
 * on A with the last seq it received gets exactly what it missed, in order, once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { skipWithoutNatsServer } from '../support/nats-server.js';
import { skipWithoutPostgres } from '../support/shared-database.js';
import { waitFor } from '../support/wait-for.js';
import { startReplicaPair, type ReplicaPair } from '../support/mcp/replica-pair.js';
import { grpc, grpcJsClient, type GrpcJsClient } from '../support/grpc/grpc-js-client.js';
import { withGrpc, type GrpcReplica } from './grpc-replica.js';

const INTEREST = 'the on-call rota changes every monday';

interface StreamedDiff {
  diff: { seq: number; op: string; node_id: string };
}

function watch(client: GrpcJsClient, key: string, afterSeq?: number): { diffs: StreamedDiff['diff'][]; call: grpc.ClientReadableStream<unknown>; ended: Promise<grpc.ServiceError> } {
  const call = client.stream('WatchDiffs', afterSeq === undefined ? {} : { after_seq: afterSeq }, key);
  const diffs: StreamedDiff['diff'][] = [];
  call.on('data', (message: StreamedDiff) => diffs.push(message.diff));
  const ended = new Promise<grpc.ServiceError>((resolve) => call.on('error', (error) => resolve(error as grpc.ServiceError)));
  return { diffs, call, ended };
}

describe.skipIf(skipWithoutNatsServer() || skipWithoutPostgres())('WatchDiffs across two replicas', () => {
  let pair: ReplicaPair;
  let a: GrpcReplica;
  let b: GrpcReplica;
  let onA: GrpcJsClient;
  let onB: GrpcJsClient;
  let writerKey = '';
  let watcherKey = '';

  beforeAll(async () => {
    pair = await startReplicaPair();
    a = await withGrpc(pair.a);
    b = await withGrpc(pair.b);
    const admin = createKeyAdministration(pair.a.db);
    writerKey = (await admin.createKey({ tenant: 'acme', agent: 'writer' })).key;
    watcherKey = (await admin.createKey({ tenant: 'acme', agent: 'watcher' })).key;
    onA = grpcJsClient(a.grpc.address);
    onB = grpcJsClient(b.grpc.address);
    await onB.unary('PlaceBeacon', { text: INTEREST, threshold: 0.5 }, watcherKey);
  });

  afterAll(async () => {
    onA?.close();
    onB?.close();
    await Promise.all([a?.grpc.close(), b?.grpc.close()]);
    await pair?.close();
  });

  const store = async (suffix: string): Promise<string> =>
    (await onA.unary<{ node: { node_id: string } }>('Store', { content: `${INTEREST} ${suffix}`, cell_type: 'Task' }, writerKey)).node.node_id;

  it('delivers a diff written on A to a stream on B, and a resume on A after the last seq gets exactly the rest', async () => {
    const live = watch(onB, watcherKey);
    await waitFor(() => pair.b.facade.openLiveStreams === 1);
    const first = await store('first');
    await waitFor(() => live.diffs.some((d) => d.node_id === first));
    expect(live.diffs[0]).toMatchObject({ op: 'created', node_id: first });
    const lastSeq = Math.max(...live.diffs.map((d) => d.seq));
    live.call.cancel();
    expect((await live.ended).code).toBe(grpc.status.CANCELLED);
    await waitFor(() => pair.b.facade.openLiveStreams === 0);

    const missed = [await store('second'), await store('third')];
    const resumed = watch(onA, watcherKey, lastSeq);
    await waitFor(() => missed.every((id) => resumed.diffs.some((d) => d.node_id === id)));
    const later = await store('fourth');
    await waitFor(() => resumed.diffs.some((d) => d.node_id === later));
    const created = resumed.diffs.filter((d) => d.op === 'created').map((d) => d.node_id);
    expect(created).toEqual([...missed, later]);
    const seqs = resumed.diffs.map((d) => d.seq);
    expect(seqs.every((seq) => seq > lastSeq)).toBe(true);
    expect(seqs).toEqual([...new Set(seqs)].sort((x, y) => x - y));
    resumed.call.cancel();
    await resumed.ended;
    await waitFor(() => pair.a.facade.openLiveStreams === 0);
  });
});
