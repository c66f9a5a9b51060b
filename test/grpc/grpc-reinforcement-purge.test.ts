/**
 * Issue 17 over gRPC, through a real @grpc/grpc-js client on a real facade (PGlite, the minilm
 * embedder, so near-duplicate reinforcement is on at its default): a rewording answers
 * reinforced = true with the node it restated and its corroborations, stated_by and trust; and
 * PurgeProject erases one project of the caller's tenant (admin only) and counts what it erased.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { errorDetailOf, failure, grpc, grpcJsClient, type GrpcJsClient } from '../support/grpc/grpc-js-client.js';
import { startGrpcReplica, type GrpcReplica } from './grpc-replica.js';

interface Node {
  node_id: string;
  content: string;
  corroborations?: number;
  stated_by: string[];
  trust?: number;
}
interface Purged {
  project: string;
  cells?: number;
  scenes?: number;
  sessions?: number;
  beacons?: number;
  diffs?: number;
  receipt?: { selector?: unknown; counts?: Record<string, number> };
}

const STATEMENT = 'User sessions are stored in PostgreSQL.';
const REWORDING = 'We keep user sessions in PostgreSQL.';

describe('reinforcement and PurgeProject over @grpc/grpc-js (minilm)', () => {
  let embedder: Embedder;
  let server: GrpcReplica;
  let client: GrpcJsClient;
  const keys: Record<'admin' | 'author' | 'peer' | 'watcher' | 'foreign', string> = { admin: '', author: '', peer: '', watcher: '', foreign: '' };

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'minilm' });
    const db = await createMeshTestDb(embedder.dimension);
    server = await startGrpcReplica({ name: 'grpc-reinforce', db, bus: new MemoryBus(), embedder });
    const admin = createKeyAdministration(db);
    keys.admin = (await admin.createKey({ tenant: 'acme', agent: 'root', roles: ['admin', 'writer'] })).key;
    keys.author = (await admin.createKey({ tenant: 'acme', agent: 'author', trust: 0.5 })).key;
    keys.peer = (await admin.createKey({ tenant: 'acme', agent: 'peer', trust: 0.6 })).key;
    keys.watcher = (await admin.createKey({ tenant: 'acme', agent: 'watcher' })).key;
    keys.foreign = (await admin.createKey({ tenant: 'globex', agent: 'intruder', roles: ['admin', 'writer'] })).key;
    client = grpcJsClient(server.grpc.address);
  }, 120_000);

  afterAll(async () => {
    client?.close();
    await server?.close();
    await embedder?.close();
  });

  it('answers a rewording with reinforced = true and the node it restated, corroborated, with both agents and raised trust', async () => {
    await client.unary('OpenSession', { project: 'sessions' }, keys.author);
    await client.unary('OpenSession', { project: 'sessions' }, keys.peer);
    const original = await client.unary<{ node: Node; reinforced?: boolean }>('Store', { content: STATEMENT, cell_type: 'Decision' }, keys.author);
    // proto3 leaves false and 0 off the wire; the client reads them as absent.
    expect(original.reinforced ?? false).toBe(false);
    expect(original.node).toMatchObject({ stated_by: ['author'], trust: 0.5 });
    expect(original.node.corroborations ?? 0).toBe(0);

    const restated = await client.unary<{ node: Node; reinforced?: boolean }>('Store', { content: REWORDING, cell_type: 'Decision' }, keys.peer);
    expect(restated.reinforced).toBe(true);
    // Noisy-or of the two agents' trust: 1 − (1 − 0.5)(1 − 0.6).
    expect(restated.node).toMatchObject({ node_id: original.node.node_id, content: STATEMENT, corroborations: 1, stated_by: ['author', 'peer'] });
    expect(restated.node.trust).toBeCloseTo(0.8, 10);

    const read = (await client.unary<{ node: Node }>('GetCell', { node_id: original.node.node_id }, keys.peer)).node;
    expect(read).toMatchObject({ corroborations: 1, stated_by: ['author', 'peer'] });
    expect(read.trust).toBeCloseTo(0.8, 10);
    const listed = await client.unary<{ cells: Node[] }>('ListCells', { project: 'sessions' }, keys.author);
    expect(listed.cells.map((c) => c.node_id)).toEqual([original.node.node_id]);
  });

  it("purges one project of the admin's tenant and counts it; a non-admin is refused and another tenant's project is untouched", async () => {
    await client.unary('OpenSession', { project: 'doomed' }, keys.foreign);
    const theirs = await client.unary<{ node: Node }>('Store', { content: 'globex keeps its own doomed notes', cell_type: 'Fact' }, keys.foreign);

    await client.unary('OpenSession', { project: 'doomed' }, keys.watcher);
    await client.unary('PlaceBeacon', { text: 'the doomed project ships on Friday', threshold: 0.3, project: 'doomed' }, keys.watcher);
    await client.unary('OpenSession', { project: 'doomed' }, keys.author);
    await client.unary('Store', { content: 'the doomed project ships on Friday', cell_type: 'Decision' }, keys.author);
    await client.unary('Store', { content: 'its database is a single SQLite file', cell_type: 'Fact' }, keys.author);
    const inbox = await client.unary<{ diffs?: unknown[] }>('PullDiffs', { since: '2000-01-01T00:00:00Z' }, keys.watcher);
    const diffs = inbox.diffs?.length ?? 0;
    expect(diffs).toBeGreaterThanOrEqual(1);

    const refused = await failure(client.unary('PurgeProject', { project: 'doomed' }, keys.author));
    expect(refused.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(errorDetailOf(refused).code).toBe('FORBIDDEN');
    expect((await client.unary<{ cells: Node[] }>('ListCells', { project: 'doomed' }, keys.author)).cells).toHaveLength(2);

    const purged = await client.unary<Purged>('PurgeProject', { project: 'doomed' }, keys.admin);
    expect(purged).toMatchObject({ project: 'doomed', cells: 2, scenes: 2, sessions: 2, beacons: 1, diffs });
    expect(purged.receipt).toMatchObject({ selector: { fields: { kind: { stringValue: 'project' }, project: { stringValue: 'doomed' } } } });
    expect((await client.unary<{ cells?: Node[] }>('ListCells', { project: 'doomed' }, keys.author)).cells ?? []).toEqual([]);
    expect((await client.unary<{ beacons?: unknown[] }>('ListBeacons', {}, keys.watcher)).beacons ?? []).toEqual([]);

    // The other tenant's project of the same name keeps its cell.
    const kept = await client.unary<{ cells: Node[] }>('ListCells', { project: 'doomed' }, keys.foreign);
    expect(kept.cells.map((c) => c.node_id)).toEqual([theirs.node.node_id]);
    expect((await failure(client.unary('PurgeProject', { project: '../etc' }, keys.admin))).code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(server.faults).toEqual([]);
  });
});
