/**
 * hyphae.v1.MemoryService through a real @grpc/grpc-js client built from proto/ by
 * @grpc/proto-loader, against the gRPC surface on a real facade (PGlite, hash embedder, live feed):
 * every RPC, tenancy, bad input, authentication and the error details.
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
  project: string;
  content: string;
  cell_type: string;
  layer: string;
  scene_id?: string;
  metadata?: { fields: Record<string, { stringValue?: string; numberValue?: number }> };
  source_ref?: { kind: string; locator: string };
}
interface Diff {
  seq: number;
  op: string;
  node_id: string;
}

const INTEREST = 'the payment service must retry idempotently';

describe('MemoryService over @grpc/grpc-js', () => {
  let embedder: Embedder;
  let server: GrpcReplica;
  let client: GrpcJsClient;
  const keys: Record<'admin' | 'writer' | 'reader' | 'foreign' | 'readOnly', string> = { admin: '', writer: '', reader: '', foreign: '', readOnly: '' };

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    const db = await createMeshTestDb(embedder.dimension);
    server = await startGrpcReplica({ name: 'grpc', db, bus: new MemoryBus(), embedder });
    const admin = createKeyAdministration(db);
    keys.admin = (await admin.createKey({ tenant: 'acme', agent: 'root', roles: ['admin', 'writer'] })).key;
    keys.writer = (await admin.createKey({ tenant: 'acme', agent: 'writer' })).key;
    keys.reader = (await admin.createKey({ tenant: 'acme', agent: 'reader' })).key;
    keys.readOnly = (await admin.createKey({ tenant: 'acme', agent: 'auditor', roles: ['reader'] })).key;
    keys.foreign = (await admin.createKey({ tenant: 'globex', agent: 'intruder', roles: ['admin', 'writer'] })).key;
    client = grpcJsClient(server.grpc.address);
  });

  afterAll(async () => {
    client?.close();
    await server?.close();
    await embedder?.close();
  });

  it('runs every RPC of the service, story-wise, on the one facade', async () => {
    const session = await client.unary<{ session_id: string; scene_id: string; opened_at: string }>('OpenSession', { project: 'payments', title: 'retry work' }, keys.writer);
    expect(session.scene_id).toMatch(/^[0-9a-f-]{36}$/);
    const beacon = await client.unary<{ beacon: { beacon_id: string; text: string; cell_types: string[] } }>(
      'PlaceBeacon',
      { text: INTEREST, threshold: 0.3, cell_types: ['Decision'] },
      keys.reader,
    );
    expect(beacon.beacon).toMatchObject({ text: INTEREST, cell_types: ['Decision'] });

    const stored = await client.unary<{ node: Node }>(
      'Store',
      {
        content: INTEREST,
        cell_type: 'Decision',
        salience: 0.9,
        source_ref: { kind: 'file', locator: 'docs/payments.md:12' },
        metadata: { fields: { ticket: { stringValue: 'PAY-7' }, weight: { numberValue: 3 } } },
      },
      keys.writer,
    );
    const node = stored.node;
    expect(node).toMatchObject({ project: 'payments', content: INTEREST, cell_type: 'Decision', layer: 'L0', scene_id: session.scene_id });
    expect(node.source_ref).toEqual({ kind: 'file', locator: 'docs/payments.md:12' });
    expect(node.metadata?.fields.ticket?.stringValue).toBe('PAY-7');

    expect((await client.unary<{ node: Node }>('GetCell', { node_id: node.node_id }, keys.reader)).node.node_id).toBe(node.node_id);
    expect((await client.unary<{ cells: Node[] }>('GetCellHistory', { node_id: node.node_id }, keys.reader)).cells.map((c) => c.node_id)).toEqual([node.node_id]);
    const listed = await client.unary<{ cells: Node[]; next_cursor?: string }>('ListCells', { project: 'payments', limit: 10 }, keys.reader);
    expect(listed.cells.map((c) => c.node_id)).toEqual([node.node_id]);
    expect(listed.next_cursor).toBeUndefined();

    const recalled = await client.unary<{ results: { node: Node; distance: number }[] }>('Recall', { query: INTEREST, k: 3 }, keys.writer);
    expect(recalled.results[0]?.node.node_id).toBe(node.node_id);
    // proto3 leaves a zero distance off the wire; the client reads it as absent.
    expect(recalled.results[0]?.distance ?? 0).toBeCloseTo(0, 5);
    const queried = await client.unary<{ results: { node: Node }[] }>('Query', { query: INTEREST, layer: 'L0' }, keys.writer);
    expect(queried.results.map((hit) => hit.node.node_id)).toContain(node.node_id);

    const beacons = await client.unary<{ beacons: { beacon_id: string }[] }>('ListBeacons', {}, keys.reader);
    expect(beacons.beacons.map((b) => b.beacon_id)).toEqual([beacon.beacon.beacon_id]);
    const pulled = await client.unary<{ diffs: Diff[]; next_since: string }>('PullDiffs', { since: '2000-01-01T00:00:00Z' }, keys.reader);
    expect(pulled.diffs.map((d) => [d.op, d.node_id])).toContainEqual(['created', node.node_id]);
    const drained = await client.unary<{ diffs: Diff[]; has_more: boolean }>('DrainInbox', { page_size: 10 }, keys.reader);
    expect(drained.diffs[0]).toMatchObject({ seq: 1, op: 'created', node_id: node.node_id });
    // The server advanced the cursor: a second drain never hands out seq 1 again.
    expect((await client.unary<{ diffs: Diff[] }>('DrainInbox', {}, keys.reader)).diffs.map((d) => d.seq)).not.toContain(1);

    const scenes = await client.unary<{ scenes: { scene_id: string; cell_count: number }[] }>('ListScenes', { project: 'payments' }, keys.reader);
    expect(scenes.scenes).toEqual([expect.objectContaining({ scene_id: session.scene_id, cell_count: 1 })]);
    const scene = await client.unary<{ scene: { scene_id: string }; cell_ids: string[]; cells: Node[] }>('GetScene', { scene_id: session.scene_id }, keys.reader);
    expect(scene.cell_ids).toEqual([node.node_id]);
    expect(scene.cells.map((c) => c.content)).toEqual([INTEREST]);
    const consolidated = await client.unary<{ node: Node }>('ConsolidateScene', { scene_id: session.scene_id }, keys.writer);
    expect(consolidated.node.layer).toBe('L1');

    const closed = await client.unary<{ session_id: string; closed_at: string }>('CloseSession', { session_id: session.session_id }, keys.writer);
    expect(closed.session_id).toBe(session.session_id);

    await client.unary('OpenSession', { project: 'payments' }, keys.writer);
    const extra = await client.unary<{ node: Node }>('Store', { content: 'a note from a file', cell_type: 'Fact', source_ref: { kind: 'file', locator: 'notes.md' } }, keys.writer);
    expect(await client.unary('ForgetCells', { source_ref: 'notes.md' }, keys.writer)).toEqual({ deleted: 1 });
    expect((await failure(client.unary('GetCell', { node_id: extra.node.node_id }, keys.writer))).code).toBe(grpc.status.NOT_FOUND);
    const erased = await client.unary<{ receipt: { actor_agent: string; counts: Record<string, number> } }>('DeleteCell', { node_id: consolidated.node.node_id }, keys.writer);
    expect(erased.receipt).toMatchObject({ actor_agent: 'writer', counts: { copies: 1 } });
    expect(await client.unary('DeleteBeacon', { beacon_id: beacon.beacon.beacon_id }, keys.reader)).toEqual({});

    const minted = await client.unary<{ info: { key_id: string; agent: string; roles: string[]; projects: string[] }; key: string }>(
      'CreateKey',
      { tenant: 'acme', agent: 'pipeline' },
      keys.admin,
    );
    expect(minted.info).toMatchObject({ agent: 'pipeline', roles: ['writer'], projects: ['*'] });
    expect(minted.key.length).toBeGreaterThan(20);
    const listedKeys = await client.unary<{ keys: { key_id: string; revoked_at?: string }[] }>('ListKeys', {}, keys.admin);
    expect(listedKeys.keys.map((k) => k.key_id)).toContain(minted.info.key_id);
    expect(await client.unary('RevokeKey', { key_id: minted.info.key_id }, keys.admin)).toEqual({});
    const revoked = await failure(client.unary('ListBeacons', {}, minted.key));
    expect(revoked.code).toBe(grpc.status.UNAUTHENTICATED);
  });

  it('answers another tenant\'s ids with NOT_FOUND, never with their content', async () => {
    await client.unary('OpenSession', { project: 'secret' }, keys.writer);
    const mine = (await client.unary<{ node: Node }>('Store', { content: 'acme launch date is March 3', cell_type: 'Fact' }, keys.writer)).node;
    for (const [method, request] of [
      ['GetCell', { node_id: mine.node_id }],
      ['GetCellHistory', { node_id: mine.node_id }],
      ['DeleteCell', { node_id: mine.node_id }],
      ['GetScene', { scene_id: mine.scene_id }],
      ['ConsolidateScene', { scene_id: mine.scene_id }],
      ['Store', { content: 'hijack', cell_type: 'Fact', supersedes: mine.node_id }],
    ] as const) {
      const error = await failure(client.unary(method, request, keys.foreign));
      expect({ method, code: error.code }).toEqual({ method, code: grpc.status.NOT_FOUND });
      expect(errorDetailOf(error).code).toBe('NOT_FOUND');
      expect(error.details).not.toContain('March');
    }
    const recalled = await client.unary<{ results: unknown[] }>('Recall', { query: 'acme launch date' }, keys.foreign);
    expect(recalled.results).toEqual([]);
    expect((await client.unary<{ node: Node }>('GetCell', { node_id: mine.node_id }, keys.reader)).node.content).toBe('acme launch date is March 3');
  });

  it('refuses bad input with INVALID_ARGUMENT and one issue per field, never INTERNAL', async () => {
    const cases: [string, object, string][] = [
      ['Store', { cell_type: 'Fact' }, 'content'],
      ['Store', { content: 'x', cell_type: 'Nonsense' }, 'cell_type'],
      ['Store', { content: 'x', cell_type: 'Fact', salience: 2 }, 'salience'],
      ['Store', { content: 'x', cell_type: 'Fact', scene_id: 'not-a-uuid' }, 'scene_id'],
      ['Store', { content: 'nul \u0000 byte', cell_type: 'Fact' }, 'content'],
      ['Store', { content: 'x', cell_type: 'Fact', metadata: { fields: { n: { numberValue: Number.NaN } } } }, '(message)'],
      ['GetCell', { node_id: 'not-a-uuid' }, 'node_id'],
      ['GetCell', { node_id: '00000000-0000-4000-8000-000000000000', as_of: 'yesterday' }, 'as_of'],
      ['Recall', { query: 'x', k: 0 }, 'k'],
      ['Recall', { query: 'x', cell_types: ['Fact', 'Bogus'] }, 'cell_types.1'],
      ['Query', { query: 'x', layer: 'L9' }, 'layer'],
      ['ListCells', { limit: 5000 }, 'limit'],
      ['PullDiffs', { since: 'last tuesday' }, 'since'],
      ['OpenSession', { project: '../etc' }, 'project'],
      ['CreateKey', { tenant: 'acme', agent: 'x', roles: ['root'] }, 'roles.0'],
    ];
    for (const [method, request, path] of cases) {
      const error = await failure(client.unary(method, request, keys.admin));
      expect({ method, path, code: error.code }).toEqual({ method, path, code: grpc.status.INVALID_ARGUMENT });
      const detail = errorDetailOf(error);
      expect(detail.code).toBe('INVALID_ARGUMENT');
      expect(detail.issues.map((issue) => issue.path)).toContain(path);
    }
    const tooLarge = await failure(client.unary('Store', { content: 'x'.repeat(40 * 1024), cell_type: 'Fact' }, keys.writer));
    expect(tooLarge.code).toBe(grpc.status.INVALID_ARGUMENT);
    expect(errorDetailOf(tooLarge)).toMatchObject({ code: 'TOO_LARGE' });
    expect(server.faults).toEqual([]);
  });

  it('refuses a message it cannot decode, or one over the size limit, without INTERNAL', async () => {
    const garbage = await new Promise<grpc.ServiceError>((resolve) => {
      client.raw.makeUnaryRequest(
        '/hyphae.v1.MemoryService/Store',
        (value: Buffer) => value,
        (value: Buffer) => value,
        Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]),
        (() => {
          const metadata = new grpc.Metadata();
          metadata.set('x-hyphae-key', keys.writer);
          return metadata;
        })(),
        (error) => resolve(error as grpc.ServiceError),
      );
    });
    expect(garbage.code).toBe(grpc.status.INVALID_ARGUMENT);
    const huge = await failure(client.unary('Store', { content: 'y'.repeat(300 * 1024), cell_type: 'Fact' }, keys.writer));
    expect(huge.code).toBe(grpc.status.RESOURCE_EXHAUSTED);
  });

  it('authenticates from x-hyphae-key metadata only, and authorises in the facade', async () => {
    const anonymous = await failure(client.unary('ListBeacons', {}, undefined));
    expect(anonymous.code).toBe(grpc.status.UNAUTHENTICATED);
    expect(errorDetailOf(anonymous).code).toBe('UNAUTHENTICATED');
    expect(anonymous.metadata.get('x-hyphae-error-code')).toEqual(['UNAUTHENTICATED']);
    expect((await failure(client.unary('ListBeacons', {}, 'hyk_made_up_key'))).code).toBe(grpc.status.UNAUTHENTICATED);
    const forbidden = await failure(client.unary('Store', { content: 'x', cell_type: 'Fact' }, keys.readOnly));
    expect(forbidden.code).toBe(grpc.status.PERMISSION_DENIED);
    expect(errorDetailOf(forbidden).code).toBe('FORBIDDEN');
    expect((await failure(client.unary('ListKeys', {}, keys.writer))).code).toBe(grpc.status.PERMISSION_DENIED);
    // A tenant field in a message is not an identity: the proto has none, and unknown fields are dropped by the decoder.
    const minted = await failure(client.unary('CreateKey', { tenant: 'acme', agent: 'x' }, keys.foreign));
    expect([grpc.status.NOT_FOUND, grpc.status.PERMISSION_DENIED]).toContain(minted.code);
  });

  it('counts calls by method and status in the Prometheus registry', async () => {
    const text = await server.metrics.render();
    expect(text).toMatch(/hyphae_grpc_calls_total\{method="Store",code="ok"\} [1-9]/);
    expect(text).toMatch(/hyphae_grpc_calls_total\{method="GetCell",code="not_found"\} [1-9]/);
    expect(text).toMatch(/hyphae_grpc_calls_total\{method="ListBeacons",code="unauthenticated"\} [1-9]/);
    expect(text).toMatch(/hyphae_grpc_call_duration_seconds_count\{method="Recall"\} [1-9]/);
  });
});
