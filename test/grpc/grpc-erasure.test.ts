/**
 * Erasure over the gRPC port (docs/grpc.md, docs/forgetting.md): DeleteCell (with include_history),
 * DeleteSource and PurgeProject answer the receipt, and EraseAgentMemories, EraseTenant (two steps)
 * and ListErasureReceipts answer what their REST routes answer — the same counts for the same
 * erasure, the same audit log — through the same facade: another tenant's agent reads as one that
 * never existed, and a project-scoped admin is refused as on REST.
 */
import { Code } from '@connectrpc/connect';
import type { Client } from '@connectrpc/connect';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration, type KeyAdministration } from '../../src/auth/key-administration.js';
import type { ErasureReceipt as WireReceipt } from '../../src/core/erasure-schemas.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { MemoryService, type ErasureReceipt } from '../../src/grpc/gen/hyphae/v1/memory_pb.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { connectClient, withKey } from '../support/grpc/connect-clients.js';
import { MISSING_ID } from '../support/facade-expectations.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { startGrpcReplica, type GrpcReplica } from './grpc-replica.js';
import { failure } from './keyed-replica.js';

/** A gRPC receipt in REST's wire shape (uint64 counts as numbers, an unset key as null). */
function asWire(receipt: ErasureReceipt | undefined): WireReceipt {
  if (receipt === undefined) throw new Error('no receipt in the answer');
  return {
    receipt_id: receipt.receiptId,
    actor_agent: receipt.actorAgent,
    actor_key: receipt.actorKey ?? null,
    selector: receipt.selector ?? {},
    counts: Object.fromEntries(Object.entries(receipt.counts).map(([kind, n]) => [kind, Number(n)])),
    started_at: receipt.startedAt,
    erased_at: receipt.erasedAt,
  };
}

describe('erasure over the gRPC port', () => {
  let embedder: Embedder;
  let server: GrpcReplica;
  let keys: KeyAdministration;
  let client: Client<typeof MemoryService>;
  const key: Record<string, string> = {};

  /** A REST call with a key, answering status and body. */
  const rest = async (method: string, path: string, as: string, body?: unknown): Promise<{ status: number; body: Record<string, unknown> }> => {
    const response = await fetch(`${server.replica.url}${path}`, {
      method,
      headers: { 'x-hyphae-key': as, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const mint = async (tenant: string, agent: string, roles: ('admin' | 'writer' | 'reader')[] = ['writer'], projects: string[] = ['*']): Promise<string> =>
    (await keys.createKey({ tenant, agent, roles, projects, default_project: projects[0] === '*' ? 'default' : projects[0] })).key;

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    const db = await createMeshTestDb(embedder.dimension);
    server = await startGrpcReplica({ name: 'erasure', db, bus: new MemoryBus(), embedder });
    keys = createKeyAdministration(db);
    client = connectClient(MemoryService, server.grpc.address);
    key.admin = await mint('acme', 'ops', ['admin']);
    key.scopedAdmin = await mint('acme', 'p-ops', ['admin'], ['p']);
    key.alice = await mint('acme', 'alice');
    key.bob = await mint('acme', 'bob');
    key.carol = await mint('globex', 'carol');
  });

  afterAll(async () => {
    await server?.close();
    await embedder?.close();
  });

  it('answers the receipts REST answers for the same erasures, and lists the same audit log', async () => {
    const chain = async (as: string, topic: string): Promise<string> => {
      const first = await client.store({ content: `the ${topic} window opens at nine`, cellType: 'Decision' }, withKey(as));
      const second = await client.store({ content: `the ${topic} window opens at ten`, cellType: 'Decision', supersedes: first.node?.nodeId ?? '' }, withKey(as));
      return second.node?.nodeId ?? '';
    };
    const byGrpc = asWire((await client.deleteCell({ nodeId: await chain(key.alice ?? '', 'deploy'), includeHistory: true }, withKey(key.alice ?? ''))).receipt);
    const byRest = await rest('DELETE', `/v1/cells/${await chain(key.alice ?? '', 'release')}?include_history=true`, key.alice ?? '');
    expect(byGrpc.counts).toMatchObject({ cells: 1, versions: 1 });
    expect(byGrpc.counts).toEqual(byRest.body.counts);
    expect(byGrpc.selector).toMatchObject({ kind: 'cell', include_history: true });

    const text = 'The quince desk closes at five.\n\nRefunds go to the refunds queue.';
    await client.ingestSource({ text, sourceId: 'memo-a' }, withKey(key.alice ?? ''));
    await client.ingestSource({ text, sourceId: 'memo-b' }, withKey(key.alice ?? ''));
    const sourceByGrpc = asWire((await client.deleteSource({ sourceId: 'memo-a' }, withKey(key.alice ?? ''))).receipt);
    const sourceByRest = await rest('DELETE', '/v1/sources/memo-b', key.alice ?? '');
    expect(sourceByGrpc.counts).toMatchObject({ sources: 1 });
    expect(sourceByGrpc.counts).toEqual(sourceByRest.body.counts);

    for (const project of ['pa', 'pb']) {
      await client.openSession({ project }, withKey(key.admin ?? ''));
      await client.store({ content: `project ${project} keeps its own notes`, cellType: 'Fact' }, withKey(key.admin ?? ''));
    }
    const purged = await client.purgeProject({ project: 'pa' }, withKey(key.admin ?? ''));
    const purgedByRest = await rest('DELETE', '/v1/admin/projects?project=pb', key.admin ?? '');
    expect(purged.cells).toBe(1);
    expect(asWire(purged.receipt).counts).toEqual((purgedByRest.body.receipt as WireReceipt).counts);
    expect(asWire(purged.receipt).selector).toEqual({ kind: 'project', project: 'pa' });

    for (const [agent, as] of [['alice', key.alice], ['bob', key.bob]] as const) {
      await client.store({ content: `${agent} notes the kiln cools for six hours`, cellType: 'Fact' }, withKey(as ?? ''));
      await client.store({ content: `${agent} notes the glaze needs two coats`, cellType: 'Fact' }, withKey(as ?? ''));
    }
    const agentByGrpc = asWire((await client.eraseAgentMemories({ agent: 'bob' }, withKey(key.admin ?? ''))).receipt);
    const agentByRest = await rest('DELETE', '/v1/admin/agents/alice/memories', key.admin ?? '');
    expect(agentByGrpc.counts.cells).toBe(2);
    expect(agentByGrpc.counts).toEqual(agentByRest.body.counts);

    const listed = await client.listErasureReceipts({ limit: 100 }, withKey(key.admin ?? ''));
    const restListed = await rest('GET', '/v1/admin/erasures?limit=100', key.admin ?? '');
    expect(listed.receipts.map(asWire)).toEqual(restListed.body.receipts);
    expect(listed.receipts.map(asWire)).toEqual(expect.arrayContaining([byGrpc, sourceByGrpc, asWire(purged.receipt), agentByGrpc]));
    expect(listed.nextCursor).toBeUndefined();
    const first = await client.listErasureReceipts({ limit: 1 }, withKey(key.admin ?? ''));
    expect(first.receipts).toHaveLength(1);
    const second = await client.listErasureReceipts({ limit: 1, cursor: first.nextCursor ?? '' }, withKey(key.admin ?? ''));
    expect(asWire(second.receipts[0])).toEqual(restListed.body.receipts instanceof Array ? restListed.body.receipts[1] : undefined);
    expect(await failure(client.listErasureReceipts({ limit: 101 }, withKey(key.admin ?? '')))).toMatchObject({ status: Code.InvalidArgument, code: 'INVALID_ARGUMENT', paths: ['limit'] });
  });

  it('reads another tenant’s agent, cell and source exactly as ones that never existed', async () => {
    const carols = await client.store({ content: 'carol keeps the globex ledger', cellType: 'Fact' }, withKey(key.carol ?? ''));
    await client.ingestSource({ text: 'Globex ledgers close monthly.', sourceId: 'ledger' }, withKey(key.carol ?? ''));
    const foreign = asWire((await client.eraseAgentMemories({ agent: 'carol' }, withKey(key.admin ?? ''))).receipt);
    const unknown = asWire((await client.eraseAgentMemories({ agent: 'nobody-here' }, withKey(key.admin ?? ''))).receipt);
    const masked = (r: WireReceipt): unknown => ({ ...r, receipt_id: '', started_at: '', erased_at: '', selector: { ...r.selector, agent: '' } });
    expect(masked(foreign)).toEqual(masked(unknown));
    expect(foreign.counts).toEqual({});
    expect((await client.getCell({ nodeId: carols.node?.nodeId ?? '' }, withKey(key.carol ?? ''))).node?.content).toBe('carol keeps the globex ledger');

    const missingCell = await failure(client.deleteCell({ nodeId: MISSING_ID, includeHistory: true }, withKey(key.alice ?? '')));
    const foreignCell = await failure(client.deleteCell({ nodeId: carols.node?.nodeId ?? '', includeHistory: true }, withKey(key.alice ?? '')));
    expect(missingCell).toMatchObject({ status: Code.NotFound, code: 'NOT_FOUND' });
    expect(foreignCell.message.replace(carols.node?.nodeId ?? '', MISSING_ID)).toBe(missingCell.message);
    const missingSource = await failure(client.deleteSource({ sourceId: 'no-such-source' }, withKey(key.alice ?? '')));
    const foreignSource = await failure(client.deleteSource({ sourceId: 'ledger' }, withKey(key.alice ?? '')));
    expect(foreignSource).toMatchObject({ status: missingSource.status, code: 'NOT_FOUND' });
    expect((await client.readSource({ sourceId: 'ledger' }, withKey(key.carol ?? ''))).text).toBe('Globex ledgers close monthly.');
  });

  it('refuses a project-scoped admin and a writer as REST does', async () => {
    const calls: [string, (as: string) => Promise<unknown>, string, string][] = [
      ['EraseAgentMemories', (as) => client.eraseAgentMemories({ agent: 'alice' }, withKey(as)), 'DELETE', '/v1/admin/agents/alice/memories'],
      ['EraseTenant', (as) => client.eraseTenant({}, withKey(as)), 'DELETE', '/v1/admin/tenant'],
      ['ListErasureReceipts', (as) => client.listErasureReceipts({}, withKey(as)), 'GET', '/v1/admin/erasures'],
    ];
    for (const [name, call, method, path] of calls) {
      for (const as of [key.scopedAdmin ?? '', key.alice ?? '']) {
        const refused = await failure(call(as));
        const byRest = await rest(method, path, as);
        expect(refused, name).toMatchObject({ status: Code.PermissionDenied, code: 'FORBIDDEN' });
        expect(byRest.status, name).toBe(403);
        expect(refused.message, name).toBe((byRest.body.error as { message: string }).message);
      }
    }
  });

  it('erases a tenant in two steps, the token bound to the key that asked, as REST does', async () => {
    const erased = async (tenant: string, erase: (admin: string, other: string) => Promise<WireReceipt>): Promise<WireReceipt> => {
      const admin = await mint(tenant, 'ops', ['admin']);
      const other = await mint(tenant, 'ops-2', ['admin']);
      const writer = await mint(tenant, 'writer');
      await rest('POST', '/v1/cells', writer, { content: `${tenant} keeps its roadmap here`, cell_type: 'Fact' });
      return erase(admin, other);
    };
    const byGrpc = await erased('initech', async (admin, other) => {
      const asked = await client.eraseTenant({}, withKey(admin));
      expect(asked.outcome.case).toBe('confirmation');
      const token = asked.outcome.case === 'confirmation' ? asked.outcome.value.confirmationToken : '';
      expect(await failure(client.eraseTenant({ confirmation: token }, withKey(other)))).toMatchObject({ status: Code.InvalidArgument, paths: ['confirmation'] });
      expect(await failure(client.eraseTenant({ confirmation: 'not-a-token' }, withKey(admin)))).toMatchObject({ status: Code.InvalidArgument, paths: ['confirmation'] });
      const done = await client.eraseTenant({ confirmation: token }, withKey(admin));
      expect(done.outcome.case).toBe('receipt');
      expect(await failure(client.eraseTenant({ confirmation: token }, withKey(admin)))).toMatchObject({ status: Code.Unauthenticated });
      return asWire(done.outcome.case === 'receipt' ? done.outcome.value : undefined);
    });
    const byRest = await erased('hooli', async (admin) => {
      const asked = await rest('DELETE', '/v1/admin/tenant', admin);
      return (await rest('DELETE', `/v1/admin/tenant?confirmation=${String(asked.body.confirmation_token)}`, admin)).body as unknown as WireReceipt;
    });
    expect(byGrpc.selector).toEqual({ kind: 'tenant' });
    expect(byGrpc.counts).toMatchObject({ cells: 1, keys_revoked: 3 });
    expect(byGrpc.counts).toEqual(byRest.counts);
  });
});
