/**
 * `subscriptions/listen` (MCP 2026-07-28) carrying Hyphae's pushes, with raw JSON-RPC written from
 * the revision's text: the acknowledgment first with the honored filter, notifications/resources/
 * updated for hyphae://inbox and subscribed cells and notifications/resources/list_changed only
 * when opted in, every message tagged with the subscription id; over Streamable HTTP (a POST whose
 * response is an SSE stream without event ids) and over stdio (multiplexed lines, ended by
 * notifications/cancelled either way); a broken HTTP stream cleaned up and re-issued; a graceful
 * end on shutdown; and delivery across two replicas over a real nats-server.
 * Absence is proven without waiting on a clock: a batch's list_changed follows its updated in one
 * write, so a later message shows that an earlier one was not held back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Principal } from '../../src/core/principal.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { callTool, startMeshReplica } from '../support/mesh/mesh-replica.js';
import type { MeshReplica } from '../support/mesh/mesh-replica.js';
import { skipWithoutPostgres } from '../support/shared-database.js';
import { waitFor } from '../support/wait-for.js';
import { skipWithoutNatsServer } from '../support/nats-server.js';
import { startReplicaPair } from '../support/mcp/replica-pair.js';
import type { ReplicaPair } from '../support/mcp/replica-pair.js';
import { SERVER_INFO, SUBSCRIPTION_ID, statelessPost, statelessRequest, openListen, startRawStdio } from '../support/mcp/stateless-client.js';
import type { ListenStream, RpcMessage } from '../support/mcp/stateless-client.js';

const INTEREST = 'the nightly export job to the data warehouse';
const UPDATED = 'notifications/resources/updated';
const LIST_CHANGED = 'notifications/resources/list_changed';
const ACK = 'notifications/subscriptions/acknowledged';

function methods(messages: readonly RpcMessage[]): string[] {
  return messages.map((message) => message.method ?? 'result');
}

function count(messages: readonly RpcMessage[], method: string): number {
  return messages.filter((message) => message.method === method).length;
}

function expectTagged(messages: readonly RpcMessage[], id: string | number): void {
  for (const message of messages) {
    if (message.method !== undefined) expect((message.params?._meta as Record<string, unknown>)[SUBSCRIPTION_ID]).toBe(id);
  }
}

describe('subscriptions/listen on one replica', () => {
  let embedder: Embedder;
  let replica: MeshReplica;
  let writerKey: string;
  let readerKey: string;
  let reader: Principal;
  const open: ListenStream[] = [];

  async function listen(id: string | number, notifications: Record<string, unknown>, key = readerKey): Promise<ListenStream> {
    const stream = await openListen(`${replica.url}/mcp`, key, id, notifications);
    open.push(stream);
    return stream;
  }

  async function storeMatching(content: string): Promise<string> {
    return String((await callTool(replica.url, writerKey, 'store', { content: `${INTEREST} ${content}`, cell_type: 'Risk', salience: 0.8 })).node_id);
  }

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    replica = await startMeshReplica({ name: 'listen', db: await createMeshTestDb(embedder.dimension), bus: new MemoryBus(), embedder });
    const keys = createKeyAdministration(replica.db);
    writerKey = (await keys.createKey({ tenant: 'acme', agent: 'writer' })).key;
    readerKey = (await keys.createKey({ tenant: 'acme', agent: 'reader' })).key;
    reader = await replica.facade.authenticate(readerKey);
    await callTool(replica.url, readerKey, 'place_beacon', { text: INTEREST, threshold: 0.3 });
  });

  afterAll(async () => {
    for (const stream of open) stream.abort();
    await replica?.close();
    await embedder?.close();
  });

  it('acknowledges the honored filter first, then pushes updated and list_changed tagged with the listen id, on an SSE response without ids', async () => {
    const own = await callTool(replica.url, readerKey, 'store', { content: 'a cell of mine to watch', cell_type: 'Fact' });
    const foreignKey = (await createKeyAdministration(replica.db).createKey({ tenant: 'other', agent: 'x' })).key;
    const foreign = await callTool(replica.url, foreignKey, 'store', { content: 'not yours', cell_type: 'Fact' });
    const ownUri = `hyphae://cells/${String(own.node_id)}`;
    const stream = await listen('watch-1', {
      toolsListChanged: true,
      promptsListChanged: true,
      resourcesListChanged: true,
      resourceSubscriptions: ['hyphae://inbox', ownUri, `hyphae://cells/${String(foreign.node_id)}`, 'hyphae://inbox?after_seq=3', 'file:///etc/passwd'],
    });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.headers.get('mcp-session-id')).toBeNull();
    await waitFor(() => stream.messages.length >= 1);
    expect(stream.messages[0]).toEqual({
      jsonrpc: '2.0',
      method: ACK,
      params: { _meta: { [SUBSCRIPTION_ID]: 'watch-1' }, notifications: { resourcesListChanged: true, resourceSubscriptions: ['hyphae://inbox', ownUri] } },
    });

    await storeMatching('failed twice this week');
    await waitFor(() => count(stream.messages, LIST_CHANGED) === 1);
    expect(stream.messages.slice(1)).toEqual([
      { jsonrpc: '2.0', method: UPDATED, params: { uri: 'hyphae://inbox', _meta: { [SUBSCRIPTION_ID]: 'watch-1' } } },
      { jsonrpc: '2.0', method: LIST_CHANGED, params: { _meta: { [SUBSCRIPTION_ID]: 'watch-1' } } },
    ]);
    expect(stream.fieldLines.filter((line) => line.startsWith('id:'))).toEqual([]);
  });

  it('sends only the types a filter opted in to, each stream tagged with its own id', async () => {
    const inboxOnly = await listen(41, { resourceSubscriptions: ['hyphae://inbox'] });
    const listOnly = await listen(42, { resourcesListChanged: true });
    const nothing = await listen(43, { toolsListChanged: true });
    await waitFor(() => [inboxOnly, listOnly, nothing].every((stream) => stream.messages.length === 1));
    expect(nothing.messages[0]?.params?.notifications).toEqual({});

    await storeMatching('moved to a new cluster');
    await storeMatching('moved back again');
    // Two diffs: two batches or one; each batch sends updated then list_changed in one write.
    await waitFor(() => count(listOnly.messages, LIST_CHANGED) >= 1 && count(inboxOnly.messages, UPDATED) >= 1);
    const before = inboxOnly.messages.length;
    await storeMatching('a third time');
    await waitFor(() => inboxOnly.messages.length > before);
    expect(count(inboxOnly.messages, LIST_CHANGED)).toBe(0);
    expect(count(listOnly.messages, UPDATED)).toBe(0);
    expect(methods(nothing.messages)).toEqual([ACK]);
    expectTagged(inboxOnly.messages, 41);
    expectTagged(listOnly.messages, 42);
  });

  it('tells a change to a subscribed cell by its URI, as the client wrote it', async () => {
    const cell = await callTool(replica.url, writerKey, 'store', { content: `${INTEREST} watched cell`, cell_type: 'Decision', salience: 0.9 });
    const nodeId = String(cell.node_id);
    const written = `hyphae://cells/${nodeId.toUpperCase()}`;
    const stream = await listen('cell', { resourceSubscriptions: [written] });
    await waitFor(() => stream.messages.length === 1);
    expect(stream.messages[0]?.params?.notifications).toEqual({ resourceSubscriptions: [written] });
    // Its owner deletes it: the deleted diff names the cell.
    await replica.facade.deleteCell(await replica.facade.authenticate(writerKey), nodeId);
    await waitFor(() => count(stream.messages, UPDATED) === 1);
    expect(stream.messages[1]).toEqual({ jsonrpc: '2.0', method: UPDATED, params: { uri: written, _meta: { [SUBSCRIPTION_ID]: 'cell' } } });
  });

  it('refuses a malformed filter with -32602 and a listen that does not accept SSE with 406', async () => {
    const bad = await statelessPost(`${replica.url}/mcp`, readerKey, statelessRequest(5, 'subscriptions/listen', { notifications: { resourceSubscriptions: 'hyphae://inbox' } }));
    expect(bad.body?.error?.code).toBe(-32602);
    const tooMany = Array.from({ length: 65 }, (_, index) => `hyphae://inbox?after_seq=${index}`);
    expect((await statelessPost(`${replica.url}/mcp`, readerKey, statelessRequest(6, 'subscriptions/listen', { notifications: { resourceSubscriptions: tooMany } }))).body?.error?.code).toBe(-32602);
    expect((await statelessPost(`${replica.url}/mcp`, readerKey, statelessRequest(7, 'subscriptions/listen', {}))).body?.error?.code).toBe(-32602);
    const jsonOnly = await statelessPost(`${replica.url}/mcp`, readerKey, statelessRequest(8, 'subscriptions/listen', { notifications: {} }), { accept: 'application/json' });
    expect(jsonOnly.status).toBe(406);
    expect(jsonOnly.body?.id).toBe(8);
  });

  it('cleans up a broken stream, and the re-issued request (a new id) hears the next diff', async () => {
    const before = replica.listenStreams.openStreams;
    const broken = await listen('first', { resourceSubscriptions: ['hyphae://inbox'] });
    await waitFor(() => broken.messages.length === 1 && replica.listenStreams.openStreams === before + 1);
    broken.abort();
    await waitFor(() => replica.listenStreams.openStreams === before);

    const reissued = await listen('second', { resourceSubscriptions: ['hyphae://inbox'] });
    await waitFor(() => reissued.messages.length === 1);
    await storeMatching('after the reconnect');
    await waitFor(() => count(reissued.messages, UPDATED) === 1);
    expectTagged(reissued.messages, 'second');
    // What landed while no stream was open is in the inbox, which reading never drains.
    const read = await statelessPost(`${replica.url}/mcp`, readerKey, statelessRequest(9, 'resources/read', { uri: 'hyphae://inbox' }));
    expect(read.body?.result?.contents?.[0]?.text).toContain('after the reconnect');
  });

  it('answers a listen whose key is revoked with UNAUTHENTICATED and ends its stream; the re-issued listen is refused', async () => {
    const keys = createKeyAdministration(replica.db);
    const doomed = await keys.createKey({ tenant: 'acme', agent: 'doomed' });
    const admin = await replica.facade.authenticate((await keys.createKey({ tenant: 'acme', agent: 'root', roles: ['admin'] })).key);
    const before = replica.listenStreams.openStreams;
    const stream = await listen('doomed-listen', { resourceSubscriptions: ['hyphae://inbox'] }, doomed.key);
    await waitFor(() => stream.messages.length === 1 && replica.listenStreams.openStreams === before + 1);
    await replica.facade.revokeKey(admin, doomed.key_id);
    await stream.ended;
    const last = stream.messages.at(-1);
    expect(last?.id).toBe('doomed-listen');
    expect(last?.error?.data?.code).toBe('UNAUTHENTICATED');
    await waitFor(() => replica.listenStreams.openStreams === before);
    const again = await statelessPost(`${replica.url}/mcp`, doomed.key, statelessRequest(2, 'subscriptions/listen', { notifications: { resourceSubscriptions: ['hyphae://inbox'] } }));
    expect(again.status).toBe(401);
  });

  it('over stdio: multiplexed with replies, ended by the client’s notifications/cancelled, and by the server’s on shutdown', async () => {
    const stdio = startRawStdio(replica.facade, reader);
    try {
      stdio.send(statelessRequest('s1', 'subscriptions/listen', { notifications: { resourceSubscriptions: ['hyphae://inbox'] } }));
      stdio.send(statelessRequest('s2', 'subscriptions/listen', { notifications: { resourceSubscriptions: ['hyphae://inbox'], resourcesListChanged: true } }));
      // The stream holds nothing up: a request after it is answered.
      const listed = await stdio.request(statelessRequest(3, 'tools/list'));
      expect(listed.result?.tools).toHaveLength(11);
      await stdio.next((line) => line.method === ACK && (line.params?._meta as Record<string, unknown>)[SUBSCRIPTION_ID] === 's2');
      const duplicate = await stdio.request(statelessRequest('s1', 'subscriptions/listen', { notifications: {} }));
      expect(duplicate.error?.code).toBe(-32602);

      await storeMatching('seen over stdio');
      const tagged = (id: string, method: string) => (line: RpcMessage): boolean =>
        line.method === method && (line.params?._meta as Record<string, unknown>)[SUBSCRIPTION_ID] === id;
      await stdio.next(tagged('s1', UPDATED));
      await stdio.next(tagged('s2', LIST_CHANGED));

      stdio.send({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 's1', reason: 'done' } });
      await stdio.request(statelessRequest(4, 'tools/list'));
      const mark = stdio.lines.length;
      await storeMatching('after s1 was cancelled');
      await stdio.next(tagged('s2', LIST_CHANGED), mark);
      expect(stdio.lines.slice(mark).filter((line) => tagged('s1', UPDATED)(line))).toEqual([]);
      // No listen reply, no handshake-revision (untagged) push was ever written.
      expect(stdio.lines.filter((line) => line.id === 's1' || line.id === 's2')).toEqual([duplicate]);
      expect(stdio.lines.filter((line) => line.method !== undefined && (line.params?._meta as Record<string, unknown> | undefined)?.[SUBSCRIPTION_ID] === undefined)).toEqual([]);
    } finally {
      await stdio.abort();
    }
    expect(stdio.lines.at(-1)).toEqual({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 's2', reason: 'the server is shutting down' } });
  });
});

describe('subscriptions/listen ends gracefully when the server shuts down', () => {
  it('sends the listen result tagged with its subscription id, then closes the stream', async () => {
    const embedder = await createEmbedder({ kind: 'hash' });
    const replica = await startMeshReplica({ name: 'closing', db: await createMeshTestDb(embedder.dimension), bus: new MemoryBus(), embedder });
    try {
      const key = (await createKeyAdministration(replica.db).createKey({ tenant: 'acme', agent: 'reader' })).key;
      const stream = await openListen(`${replica.url}/mcp`, key, 77, { resourcesListChanged: true });
      await waitFor(() => stream.messages.length === 1);
      await replica.close();
      await stream.ended;
      expect(methods(stream.messages)).toEqual([ACK, 'result']);
      expect(stream.messages[1]).toEqual({
        jsonrpc: '2.0',
        id: 77,
        result: { resultType: 'complete', _meta: { [SUBSCRIPTION_ID]: 77, [SERVER_INFO]: { name: 'hyphae', version: expect.any(String) } } },
      });
    } finally {
      await embedder.close();
    }
  });
});

describe.skipIf(skipWithoutNatsServer() || skipWithoutPostgres())('subscriptions/listen across two replicas over a real nats-server', () => {
  let pair: ReplicaPair | undefined;
  let a: MeshReplica;
  let b: MeshReplica;
  let stream: ListenStream | undefined;

  beforeAll(async () => {
    pair = await startReplicaPair();
    ({ a, b } = pair);
  });

  afterAll(async () => {
    stream?.abort();
    await pair?.close();
  });

  it('a listen stream on replica A hears a diff produced on replica B', async () => {
    const keys = createKeyAdministration(a.db);
    const writerKey = (await keys.createKey({ tenant: 'acme', agent: 'writer' })).key;
    const readerKey = (await keys.createKey({ tenant: 'acme', agent: 'reader' })).key;
    await callTool(b.url, readerKey, 'place_beacon', { text: INTEREST, threshold: 0.3 });
    stream = await openListen(`${a.url}/mcp`, readerKey, 'across', { resourceSubscriptions: ['hyphae://inbox'], resourcesListChanged: true });
    await waitFor(() => stream?.messages.length === 1);
    await callTool(b.url, writerKey, 'store', { content: `${INTEREST} moved to replica b`, cell_type: 'Decision', salience: 0.8 });
    await waitFor(() => count(stream?.messages ?? [], LIST_CHANGED) === 1);
    expect(methods(stream.messages)).toEqual([ACK, UPDATED, LIST_CHANGED]);
    expectTagged(stream.messages, 'across');
  });
});
