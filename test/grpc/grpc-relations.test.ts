/**
 * Relations over the gRPC port (docs/grpc.md, docs/relations.md): Store declares relations,
 * ListRelations, AddRelations and DeleteRelation answer what /v1/cells/{id}/relations answers, and
 * Subgraph what /v1/cells/{id}/subgraph answers, through the same facade with the same error codes;
 * another tenant's id reads exactly as a random one; Recall with graph_context gives each hit its
 * one-hop relations.
 */
import { randomUUID } from 'node:crypto';
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryService } from '../../src/grpc/gen/hyphae/v1/memory_pb.js';
import { connectClient, withKey } from '../support/grpc/connect-clients.js';
import type { GrpcReplica } from './grpc-replica.js';
import { failure, startKeyedReplica, type KeyedReplica } from './keyed-replica.js';

describe('relations over the gRPC port', () => {
  let replica: KeyedReplica;
  let server: GrpcReplica;
  let writerKey = '';
  let readerKey = '';
  let otherKey = '';

  beforeAll(async () => {
    replica = await startKeyedReplica('relations');
    ({ server, writerKey, readerKey, otherKey } = replica);
  });

  afterAll(async () => replica?.close());

  it('declares relations at store and after, lists, deletes and walks them', async () => {
    const client = connectClient(MemoryService, server.grpc.address);
    const question = (await client.store({ content: 'Where do refunds after noon go?', cellType: 'Context' }, withKey(writerKey))).node?.nodeId ?? '';
    const risk = (await client.store({ content: 'The overnight queue overflows on month ends.', cellType: 'Risk' }, withKey(writerKey))).node?.nodeId ?? '';
    const answer = await client.store(
      { content: 'Refunds after noon go to the overnight queue.', cellType: 'Decision', relations: [{ to: question, type: 'answers' }] },
      withKey(writerKey),
    );
    const answerId = answer.node?.nodeId ?? '';
    expect((await client.listRelations({ nodeId: answerId }, withKey(readerKey))).relations).toEqual([
      expect.objectContaining({ from: answerId, to: question, type: 'answers' }),
    ]);
    const added = await client.addRelations({ nodeId: answerId, relations: [{ to: risk, type: 'raises' }] }, withKey(writerKey));
    expect(added.nodeId).toBe(answerId);
    expect(added.relations.map((r) => [r.to, r.type])).toEqual([
      [question, 'answers'],
      [risk, 'raises'],
    ]);

    const graph = await client.subgraph({ nodeId: answerId, depth: 1 }, withKey(readerKey));
    expect(graph.members.map((m) => [m.id, m.kind, m.depth, m.discoveredRelation, m.discoveredVia])).toEqual([
      [answerId, 'cell', 0, undefined, undefined],
      [question, 'cell', 1, 'answers', answerId],
      [risk, 'cell', 1, 'raises', answerId],
    ]);
    expect(graph.members[0]).toMatchObject({ cellType: 'Decision', project: 'default', preview: 'Refunds after noon go to the overnight queue.' });
    expect(graph.relations.map((r) => `${r.from} ${r.type} ${r.to}`).sort()).toEqual([`${answerId} answers ${question}`, `${answerId} raises ${risk}`].sort());
    expect(graph.truncated).toBe(false);
    const clipped = await client.subgraph({ nodeId: answerId, maxMembers: 2, relationTypes: ['answers', 'raises'] }, withKey(readerKey));
    expect(clipped.members.map((m) => m.id)).toEqual([answerId, question]);
    expect(clipped.truncated).toBe(true);

    const recalled = await client.recall({ query: 'Refunds after noon go to the overnight queue.', k: 1, graphContext: true }, withKey(readerKey));
    expect(recalled.results[0]?.node?.nodeId).toBe(answerId);
    expect(recalled.results[0]?.relations.map((r) => r.type).sort()).toEqual(['answers', 'raises']);
    expect((await client.recall({ query: 'Refunds after noon go to the overnight queue.', k: 1 }, withKey(readerKey))).results[0]?.relations).toEqual([]);

    await client.deleteRelation({ nodeId: answerId, to: risk, type: 'raises' }, withKey(writerKey));
    expect((await client.listRelations({ nodeId: answerId }, withKey(readerKey))).relations.map((r) => r.type)).toEqual(['answers']);
    expect(await failure(client.deleteRelation({ nodeId: answerId, to: risk, type: 'raises' }, withKey(writerKey)))).toMatchObject({ status: Code.NotFound, code: 'NOT_FOUND' });
  });

  it('refuses another tenant’s id exactly as a random one, a reader’s addition, and bounds past the limit', async () => {
    const client = connectClient(MemoryService, server.grpc.address);
    const mine = (await client.store({ content: 'Invoices close on the fifth working day.', cellType: 'Fact' }, withKey(writerKey))).node?.nodeId ?? '';
    const theirs = (await client.store({ content: 'Globex invoices close on the first.', cellType: 'Fact' }, withKey(otherKey))).node?.nodeId ?? '';
    const random = randomUUID();
    const toTheirs = await failure(client.addRelations({ nodeId: mine, relations: [{ to: theirs, type: 'contradicts' }] }, withKey(writerKey)));
    const toRandom = await failure(client.addRelations({ nodeId: mine, relations: [{ to: random, type: 'contradicts' }] }, withKey(writerKey)));
    expect(toTheirs).toMatchObject({ status: Code.NotFound, code: 'NOT_FOUND' });
    expect(toTheirs.message.replace(theirs, '<id>')).toBe(toRandom.message.replace(random, '<id>'));
    const storeToTheirs = await failure(client.store({ content: 'A note relating across tenants.', cellType: 'Fact', relations: [{ to: theirs, type: 'cites' }] }, withKey(writerKey)));
    expect(storeToTheirs).toMatchObject({ status: Code.NotFound, code: 'NOT_FOUND' });
    expect(await failure(client.subgraph({ nodeId: theirs }, withKey(writerKey)))).toMatchObject({ status: Code.NotFound, code: 'NOT_FOUND' });
    expect(await failure(client.listRelations({ nodeId: theirs }, withKey(writerKey)))).toMatchObject({ status: Code.NotFound, code: 'NOT_FOUND' });
    expect(await failure(client.addRelations({ nodeId: mine, relations: [{ to: mine, type: 'cites' }] }, withKey(readerKey)))).toMatchObject({ status: Code.PermissionDenied });
    expect(await failure(client.addRelations({ nodeId: mine, relations: [{ to: theirs, type: 'supersedes' }] }, withKey(writerKey)))).toMatchObject({ status: Code.InvalidArgument });
    expect(await failure(client.subgraph({ nodeId: mine, depth: 11 }, withKey(readerKey)))).toMatchObject({
      status: Code.InvalidArgument,
      issues: [{ path: 'depth', message: 'at most 10' }],
    });
    expect(await failure(client.subgraph({ nodeId: mine, maxMembers: 1001 }, withKey(readerKey)))).toMatchObject({
      status: Code.InvalidArgument,
      issues: [{ path: 'max_members', message: 'at most 1000' }],
    });
  });
});
