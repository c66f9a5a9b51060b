/**
 * Sources over the gRPC port (docs/grpc.md, docs/sources.md): IngestSource, ListSources by kind,
 * ReadSource in slices, GetSourceStatus, DeleteSource and ListSourceChunks answer what /v1/sources
 * answers, through the same facade, with the same error codes; Recall takes kind and num_related_chunks and names a
 * chunk hit's source.
 */
import { Code } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryService } from '../../src/grpc/gen/hyphae/v1/memory_pb.js';
import { connectClient, withKey } from '../support/grpc/connect-clients.js';
import { handbook } from '../support/source-fixtures.js';
import type { GrpcReplica } from './grpc-replica.js';
import { failure, startKeyedReplica, type KeyedReplica } from './keyed-replica.js';

describe('sources over the gRPC port', () => {
  let replica: KeyedReplica;
  let server: GrpcReplica;
  let writerKey = '';
  let readerKey = '';
  let otherKey = '';
  const document = handbook('quince', 6);

  beforeAll(async () => {
    replica = await startKeyedReplica('sources');
    ({ server, writerKey, readerKey, otherKey } = replica);
  });

  afterAll(async () => replica?.close());

  it('ingests, lists by kind, reads in slices, recalls by kind with related chunks, reports status and deletes', async () => {
    const client = connectClient(MemoryService, server.grpc.address);
    const ingested = await client.ingestSource({ text: document, format: 'markdown', title: 'Quince handbook', sourceId: 'handbook', metadata: { team: 'ops' }, observationDate: '2026-07-04' }, withKey(writerKey));
    expect(ingested).toMatchObject({ kind: 'knowledge', title: 'Quince handbook', status: { sourceId: 'handbook', project: 'default', state: 'ready', servingPrevious: false } });
    expect(ingested.status?.chunksTotal).toBeGreaterThan(2);
    const chat = await client.ingestSource({ turns: [{ user: 'Where do quince refunds go?', assistant: 'To the refunds queue.' }], userName: 'Ana', sourceId: 'chat' }, withKey(writerKey));
    expect(chat).toMatchObject({ kind: 'memory', status: { state: 'ready' } });

    const knowledge = await client.listSources({ kind: 'knowledge' }, withKey(readerKey));
    expect(knowledge.sources.map((s) => [s.sourceId, s.format, s.title, s.createdBy])).toEqual([['handbook', 'markdown', 'Quince handbook', 'writer']]);
    expect(knowledge.sources[0]).toMatchObject({ metadata: { team: 'ops' }, observationDate: '2026-07-04', totalChars: Array.from(document).length, chunkCount: ingested.status?.chunksTotal });
    expect((await client.listSources({ kind: 'memory' }, withKey(readerKey))).sources.map((s) => s.sourceId)).toEqual(['chat']);
    const paged = await client.listSources({ limit: 1 }, withKey(readerKey));
    expect(paged.sources).toHaveLength(1);
    expect(paged.nextCursor).toBeDefined();

    const slices: string[] = [];
    let offset: number | undefined = 0;
    while (offset !== undefined) {
      const slice = await client.readSource({ sourceId: 'handbook', offset, limit: 333 }, withKey(readerKey));
      expect(slice).toMatchObject({ state: 'ready', offset, source: { sourceId: 'handbook', kind: 'knowledge' } });
      slices.push(slice.text);
      offset = slice.nextOffset;
    }
    expect(slices.join('')).toBe(document);
    expect((await client.readSource({ sourceId: 'handbook', offset: 10_000_000 }, withKey(readerKey))).text).toBe('');

    const { results } = await client.recall({ query: 'quince settlement rule 3.4 ledgers', k: 3, kind: 'knowledge', numRelatedChunks: 1 }, withKey(readerKey));
    expect(results.length).toBeGreaterThan(0);
    for (const hit of results) expect(hit.source?.sourceId).toBe('handbook');
    const hit = results[0];
    expect(Array.from(document).slice(hit?.source?.charStart, hit?.source?.charEnd).join('')).toBe(hit?.node?.content.split('\n\n').slice(1).join('\n\n'));
    expect(hit?.relatedChunks.length).toBeGreaterThan(0);
    expect((await client.recall({ query: 'quince refunds queue', k: 5, kind: 'memory' }, withKey(readerKey))).results.every((r) => r.source?.sourceId !== 'handbook')).toBe(true);

    expect(await client.getSourceStatus({ sourceId: 'handbook' }, withKey(readerKey))).toMatchObject({ status: { state: 'ready', chunksDone: ingested.status?.chunksTotal } });
    await client.deleteSource({ sourceId: 'handbook' }, withKey(writerKey));
    expect(await failure(client.readSource({ sourceId: 'handbook' }, withKey(readerKey)))).toMatchObject({ status: Code.NotFound, code: 'NOT_FOUND' });
    expect(await failure(client.getSourceStatus({ sourceId: 'handbook' }, withKey(readerKey)))).toMatchObject({ status: Code.NotFound, code: 'NOT_FOUND' });
  });

  it('pages through a source’s chunks in source order as GET /v1/sources/{id}/chunks does, with its errors', async () => {
    const client = connectClient(MemoryService, server.grpc.address);
    const ingested = await client.ingestSource({ text: handbook('medlar', 6), format: 'markdown', title: 'Medlar handbook', sourceId: 'medlar' }, withKey(writerKey));
    const total = ingested.status?.chunksTotal ?? 0;
    expect(total).toBeGreaterThan(4);
    const seen: number[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listSourceChunks({ sourceId: 'medlar', limit: 2, ...(cursor === undefined ? {} : { cursor }) }, withKey(readerKey));
      expect(page).toMatchObject({ sourceId: 'medlar', project: 'default', version: 'served', state: 'ready', chunksTotal: total });
      expect(page.chunks.length).toBeLessThanOrEqual(2);
      for (const chunk of page.chunks) {
        expect(chunk).toMatchObject({ status: 'ready', headingPath: expect.stringContaining('Handbook medlar') });
        expect(chunk.nodeId).toMatch(/^[0-9a-f-]{36}$/);
        expect(chunk.charEnd).toBeGreaterThan(chunk.charStart);
        seen.push(chunk.chunkIndex);
      }
      cursor = page.nextCursor;
    } while (cursor !== undefined);
    expect(seen).toEqual(Array.from({ length: total }, (_, i) => i));

    expect(await failure(client.listSourceChunks({ sourceId: 'medlar', limit: 201 }, withKey(readerKey)))).toMatchObject({ status: Code.InvalidArgument, paths: ['limit'] });
    expect(await failure(client.listSourceChunks({ sourceId: 'medlar', version: 'latest' }, withKey(readerKey)))).toMatchObject({ status: Code.InvalidArgument, paths: ['version'] });
    expect(await failure(client.listSourceChunks({ sourceId: 'medlar', cursor: 'bm90LWEtY3Vyc29y' }, withKey(readerKey)))).toMatchObject({ status: Code.InvalidArgument, paths: ['cursor'] });
    expect(await failure(client.listSourceChunks({ sourceId: 'medlar', version: 'pending' }, withKey(readerKey)))).toMatchObject({ status: Code.NotFound, code: 'NOT_FOUND' });
    // Another tenant's source reads as not found.
    expect(await failure(client.listSourceChunks({ sourceId: 'medlar' }, withKey(otherKey)))).toMatchObject({ status: Code.NotFound, code: 'NOT_FOUND' });
    expect(await failure(client.listSourceChunks({ sourceId: 'medlar' }))).toMatchObject({ status: Code.Unauthenticated });
  });

  it('answers the same errors as REST', async () => {
    const client = connectClient(MemoryService, server.grpc.address);
    await client.ingestSource({ text: 'The quince desk closes at five.', sourceId: 'memo' }, withKey(writerKey));
    expect(await failure(client.ingestSource({ text: 'x', turns: [{ user: 'a', assistant: 'b' }] }, withKey(writerKey)))).toMatchObject({ status: Code.InvalidArgument, code: 'INVALID_ARGUMENT', paths: ['turns'] });
    expect(await failure(client.ingestSource({}, withKey(writerKey)))).toMatchObject({ status: Code.InvalidArgument, code: 'INVALID_ARGUMENT', paths: ['text'] });
    expect(await failure(client.ingestSource({ text: 'again', sourceId: 'memo', overwrite: false }, withKey(writerKey)))).toMatchObject({ status: Code.Aborted, code: 'CONFLICT' });
    expect(await failure(client.ingestSource({ text: 'a note', format: 'rtf' }, withKey(writerKey)))).toMatchObject({ status: Code.InvalidArgument, paths: ['format'] });
    expect(await failure(client.ingestSource({ text: 'a note' }, withKey(readerKey)))).toMatchObject({ status: Code.PermissionDenied, code: 'FORBIDDEN' });
    expect(await failure(client.readSource({ sourceId: 'memo', offset: 2 ** 31 }, withKey(readerKey)))).toMatchObject({ status: Code.InvalidArgument, paths: ['offset'] });
    expect(await failure(client.readSource({ sourceId: 'memo', limit: 20_001 }, withKey(readerKey)))).toMatchObject({ status: Code.InvalidArgument, paths: ['limit'] });
    expect(await failure(client.readSource({ sourceId: '' }, withKey(readerKey)))).toMatchObject({ status: Code.InvalidArgument, paths: ['source_id'] });
    expect(await failure(client.listSources({ kind: 'notes' }, withKey(readerKey)))).toMatchObject({ status: Code.InvalidArgument, paths: ['kind'] });
    // Another tenant's source is not found, and that tenant may use the same id without touching it.
    expect(await failure(client.readSource({ sourceId: 'memo' }, withKey(otherKey)))).toMatchObject({ status: Code.NotFound, code: 'NOT_FOUND' });
    expect(await failure(client.deleteSource({ sourceId: 'memo' }, withKey(otherKey)))).toMatchObject({ status: Code.NotFound });
    await client.ingestSource({ text: 'Globex keeps its own memo.', sourceId: 'memo' }, withKey(otherKey));
    expect((await client.readSource({ sourceId: 'memo' }, withKey(readerKey))).text).toBe('The quince desk closes at five.');
    expect(await failure(client.listSources({}))).toMatchObject({ status: Code.Unauthenticated });
  });
});
