/**
 * Two replicas in this process, each with its own pool on one shared native PostgreSQL with
 * pgvector, its own NATS connection, outbox relay, live feed and HTTP server; one real
 * nats-server between them. (test/mesh/multi-process.test.ts runs the same story with `hyphae serve`.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Diff } from '../../src/core/entities.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { NatsBus } from '../../src/mesh/nats-bus.js';
import { callTool, startMeshReplica } from '../support/mesh/mesh-replica.js';
import type { MeshReplica } from '../support/mesh/mesh-replica.js';
import { skipWithoutNatsServer, startNatsServer } from '../support/nats-server.js';
import type { NatsServer } from '../support/nats-server.js';
import { skipWithoutPostgres, startSharedDatabase } from '../support/shared-database.js';
import type { SharedDatabase } from '../support/shared-database.js';
import { openSse } from '../support/sse-client.js';
import type { SseConnection } from '../support/sse-client.js';
import { waitFor } from '../support/wait-for.js';

const TENANT = 'acme';
const INTEREST = 'rotate the database credentials before the audit';
const seqsOf = (sse: SseConnection): number[] => sse.events.map((e) => (JSON.parse(e.data) as { params: { diff: Diff } }).params.diff.seq);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe.skipIf(skipWithoutNatsServer() || skipWithoutPostgres())('gossip across two replicas over a real nats-server', () => {
  let nats: NatsServer;
  let database: SharedDatabase;
  let embedder: Embedder;
  let a: MeshReplica;
  let b: MeshReplica;
  let observer: NatsBus;
  const published: Diff[] = [];
  const streams: SseConnection[] = [];
  const keys: Record<string, string> = {};

  async function replica(name: string, refreshIntervalMs: number): Promise<MeshReplica> {
    const bus = await NatsBus.connect({ servers: nats.url, name, reconnectTimeWaitMs: 100, publishTimeoutMs: 10_000 });
    return startMeshReplica({ name, db: await database.connect(4), bus, embedder, refreshIntervalMs, maxBackoffMs: 300 });
  }

  async function stream(on: MeshReplica, agent: string, lastEventId?: number): Promise<SseConnection> {
    const headers: Record<string, string> = { 'x-hyphae-key': keys[agent] ?? '' };
    if (lastEventId !== undefined) headers['last-event-id'] = String(lastEventId);
    const sse = await openSse(`${on.url}/mcp`, headers);
    streams.push(sse);
    return sse;
  }

  async function drainAll(on: MeshReplica, agent: string): Promise<Diff[]> {
    const all: Diff[] = [];
    for (;;) {
      const page = (await callTool(on.url, keys[agent] ?? '', 'drain_inbox', { page_size: 500 })) as { diffs: Diff[]; has_more: boolean };
      all.push(...page.diffs);
      if (!page.has_more) return all;
    }
  }

  beforeAll(async () => {
    nats = await startNatsServer();
    embedder = await createEmbedder({ kind: 'hash' });
    database = await startSharedDatabase(embedder.dimension);
    // A refresh interval no assertion waits for: delivery must come from the bus and its catch-ups.
    a = await replica('replica-a', 600_000);
    b = await replica('replica-b', 600_000);
    const admin = createKeyAdministration(a.db);
    for (const agent of ['writer', 'reader', 'watcher']) keys[agent] = (await admin.createKey({ tenant: TENANT, agent })).key;
    await callTool(b.url, keys.reader ?? '', 'place_beacon', { text: INTEREST, threshold: 0.5 });
    await callTool(a.url, keys.watcher ?? '', 'place_beacon', { text: INTEREST, threshold: 0.5 });
    observer = await NatsBus.connect({ servers: nats.url, name: 'observer', reconnectTimeWaitMs: 100 });
    await observer.subscribe(`hyphae.${TENANT}.beacon.*`, (envelope) => published.push(envelope.diff));
  });

  afterAll(async () => {
    for (const sse of streams) sse.close();
    await Promise.all([a?.close(), b?.close(), observer?.close()]);
    await database?.close();
    await embedder?.close();
    await nats?.stop();
  });

  it('a store on replica A reaches the beacon owner on replica B: in its inbox and on its live stream', async () => {
    const live = await stream(b, 'reader');
    await waitFor(() => b.feed.openStreams === 1);
    const stored = await callTool(a.url, keys.writer ?? '', 'store', { content: INTEREST, cell_type: 'Constraint', salience: 0.9 });
    await waitFor(() => live.events.length === 1);
    const diff = (JSON.parse(live.events[0]?.data ?? '{}') as { params: { diff: Diff } }).params.diff;
    expect(diff).toMatchObject({ seq: 1, node_id: stored.node_id, op: 'created', source_agent: 'writer' });
    const inbox = await drainAll(b, 'reader');
    expect(inbox.map((d) => [d.seq, d.node_id])).toEqual([[1, stored.node_id]]);
    live.close();
  });

  it('relays on both replicas share the outbox: every diff is published once, no stream sees one twice', async () => {
    published.length = 0;
    const onB = await stream(b, 'reader');
    const onA = await stream(a, 'watcher');
    await waitFor(() => b.feed.openStreams === 1 && a.feed.openStreams === 1);
    const stores = Array.from({ length: 24 }, (_, i) =>
      callTool(i % 2 === 0 ? a.url : b.url, keys.writer ?? '', 'store', { content: `${INTEREST} (${i})`, cell_type: 'Risk', salience: 0.9 }),
    );
    await Promise.all(stores);
    await waitFor(() => onB.events.length === 24 && onA.events.length === 24);
    expect(seqsOf(onB)).toEqual(range(2, 25));
    expect(seqsOf(onA)).toEqual(range(2, 25));
    await waitFor(() => published.length >= 48);
    const ids = published.map((d) => d.diff_id);
    expect(new Set(ids).size).toBe(ids.length);
    onB.close();
    onA.close();
  });

  it('NATS stopped mid-burst and started again: inboxes hold every diff once, every stream gets every diff once', async () => {
    const before = (await drainAll(b, 'reader')).length;
    expect(before).toBe(24);
    const head = { reader: 25, watcher: 25 };
    const readerOnB = await stream(b, 'reader');
    const readerOnA = await stream(a, 'reader');
    const watcherOnA = await stream(a, 'watcher');
    await waitFor(() => a.feed.openStreams === 2 && b.feed.openStreams === 1);

    const total = 60;
    for (let i = 0; i < total; i += 1) {
      if (i === 20) {
        await nats.stop();
        await waitFor(() => !a.bus.isConnected() && !b.bus.isConnected());
      }
      if (i === 40) await nats.start();
      const on = i % 3 === 0 ? b : a;
      await callTool(on.url, keys.writer ?? '', 'store', { content: `${INTEREST} [burst ${i}]`, cell_type: 'Decision', salience: 0.9 });
    }

    const readerInbox = await drainAll(b, 'reader');
    expect(readerInbox.map((d) => d.seq)).toEqual(range(head.reader + 1, head.reader + total));
    const expected = range(head.reader + 1, head.reader + total);
    await waitFor(() => readerOnB.events.length >= total && readerOnA.events.length >= total && watcherOnA.events.length >= total);
    expect(seqsOf(readerOnB)).toEqual(expected);
    expect(seqsOf(readerOnA)).toEqual(expected);
    expect(seqsOf(watcherOnA)).toEqual(range(head.watcher + 1, head.watcher + total));
    // The relays caught up too: nothing is left unpublished once NATS is back.
    await waitFor(async () => (await a.relay.outboxLagSeconds()) === 0);
    const { rows } = await a.db.query<{ n: number }>('SELECT count(*)::int AS n FROM diffs WHERE published_at IS NULL');
    expect(rows[0]?.n).toBe(0);
  });

  it('Last-Event-ID resumes on the other replica exactly after the last event seen', async () => {
    const first = await stream(b, 'reader', 80);
    await waitFor(() => first.events.length === 5);
    expect(seqsOf(first)).toEqual(range(81, 85));
    first.close();
    await callTool(a.url, keys.writer ?? '', 'store', { content: INTEREST, cell_type: 'Lesson', salience: 0.9 });
    const resumed = await stream(a, 'reader', 85);
    await waitFor(() => resumed.events.length === 1);
    expect(seqsOf(resumed)).toEqual([86]);
    expect(resumed.events[0]?.id).toBe('86');
  });

  it('one idempotency key sent concurrently to both replicas stores one cell, every caller gets it, one diff goes out', async () => {
    await drainAll(b, 'reader');
    const replays = 10;
    const keysUsed = Array.from({ length: 8 }, (_, i) => `race-${i}`);
    const calls = keysUsed.flatMap((idempotencyKey) =>
      Array.from({ length: replays }, (_, i) =>
        callTool(i % 2 === 0 ? a.url : b.url, keys.writer ?? '', 'store', { content: `${INTEREST} [${idempotencyKey}]`, cell_type: 'Risk', salience: 0.9, idempotency_key: idempotencyKey }).then(
          (node) => ({ idempotencyKey, nodeId: node.node_id as string }),
        ),
      ),
    );
    const answers = await Promise.all(calls);
    const { rows } = await a.db.query<{ idempotency_key: string; node_id: string }>(
      `SELECT idempotency_key, node_id::text AS node_id FROM cells WHERE tenant_id = $1 AND idempotency_key = ANY($2::text[])`,
      [TENANT, keysUsed],
    );
    expect(rows).toHaveLength(keysUsed.length);
    const stored = new Map(rows.map((row) => [row.idempotency_key, row.node_id]));
    for (const answer of answers) expect(answer.nodeId).toBe(stored.get(answer.idempotencyKey));
    const inbox = await drainAll(b, 'reader');
    expect(inbox.map((d) => d.node_id).sort()).toEqual([...stored.values()].sort());
  });

  it('50 agents storing at once over both replicas: each one receives every other agent\'s cell exactly once', async () => {
    const topic = 'the nightly export job must retry failed uploads to object storage';
    const agents = Array.from({ length: 50 }, (_, i) => `agent-${i}`);
    const admin = createKeyAdministration(a.db);
    for (const agent of agents) keys[agent] = (await admin.createKey({ tenant: TENANT, agent })).key;
    const home = (i: number): MeshReplica => (i % 2 === 0 ? a : b);
    await Promise.all(agents.map((agent, i) => callTool(home(i).url, keys[agent] ?? '', 'place_beacon', { text: topic, threshold: 0.3 })));
    // Every store of a note updates all 49 other inboxes, so 100 at once queue for row locks and pool
    // connections; a caller refused with UNAVAILABLE retries after Retry-After with the same key, as
    // an agent should.
    let refused = 0;
    const storeNote = async (agent: string, i: number, note: number): Promise<{ agent: string; nodeId: string }> => {
      for (;;) {
        const response = await fetch(`${home(i + note).url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json', 'x-hyphae-key': keys[agent] ?? '' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'store', arguments: { content: `${topic} (${agent}, note ${note})`, cell_type: 'Decision', salience: 0.9, idempotency_key: `${agent}-${note}` } },
          }),
        });
        const body = (await response.json()) as { result?: { structuredContent: { node_id: string } }; error?: { data: { code: string; retry_after_seconds: number } } };
        if (body.result !== undefined) return { agent, nodeId: body.result.structuredContent.node_id };
        expect(body.error?.data.code).toBe('UNAVAILABLE');
        refused += 1;
        await new Promise((resolve) => setTimeout(resolve, (body.error?.data.retry_after_seconds ?? 1) * 1000));
      }
    };
    const stored = await Promise.all(agents.flatMap((agent, i) => [0, 1].map((note) => storeNote(agent, i, note))));
    expect(new Set(stored.map((s) => s.nodeId)).size).toBe(stored.length);
    // Each agent drains on the replica it did not place its beacon on.
    const inboxes = await Promise.all(agents.map((agent, i) => drainAll(home(i + 1), agent)));
    agents.forEach((agent, i) => {
      const expected = stored.filter((s) => s.agent !== agent).map((s) => s.nodeId).sort();
      expect(inboxes[i]?.map((d) => d.node_id).sort()).toEqual(expected);
    });
    console.info(`50 agents: ${stored.length} stores, ${refused} refused with UNAVAILABLE and retried`);
    // A hang guard, not a timing claim: each refused store waits out its Retry-After (1 s) before
    // retrying, so the wall time grows with the refusals a loaded machine causes (33 s in a CI run
    // with 160 of them; past the suite's 60 s once at load 26).
  }, 180_000);
  it('a supersession stored on replica B reaches, live on replica A and B, both the watcher told of the old cell and the one the new text matches', async () => {
    // A tenant of its own, so no beacon of the tests above can match these texts.
    const tenant = 'acme-supersede';
    const admin = createKeyAdministration(a.db);
    const key: Record<string, string> = {};
    for (const agent of ['author', 'told', 'matched']) key[agent] = (await admin.createKey({ tenant, agent })).key;
    await callTool(a.url, key.told ?? '', 'place_beacon', { text: 'redis cache cluster sessions', threshold: 0.3 });
    await callTool(b.url, key.matched ?? '', 'place_beacon', { text: 'logins persist postgresql tables', threshold: 0.3 });
    const [openOnA, openOnB] = [a.feed.openStreams, b.feed.openStreams];
    const onA = await openSse(`${a.url}/mcp`, { 'x-hyphae-key': key.told ?? '' });
    const onB = await openSse(`${b.url}/mcp`, { 'x-hyphae-key': key.matched ?? '' });
    streams.push(onA, onB);
    await waitFor(() => a.feed.openStreams === openOnA + 1 && b.feed.openStreams === openOnB + 1);

    const old = await callTool(a.url, key.author ?? '', 'store', { content: 'We keep user sessions in a Redis cache cluster.', cell_type: 'Decision' });
    await waitFor(() => onA.events.length === 1);
    const next = await callTool(b.url, key.author ?? '', 'store', {
      content: 'Logins now persist inside PostgreSQL tables.',
      cell_type: 'Decision',
      supersedes: old.node_id,
    });
    await waitFor(() => onA.events.length === 2 && onB.events.length === 1);
    const live = (sse: SseConnection): [string, string, string | null][] =>
      sse.events.map((e) => (JSON.parse(e.data) as { params: { diff: Diff } }).params.diff).map((d) => [d.op, d.node_id, d.supersedes]);
    expect(live(onA)).toEqual([
      ['created', old.node_id, null],
      ['updated', next.node_id, old.node_id],
    ]);
    expect(live(onB)).toEqual([['updated', next.node_id, old.node_id]]);
    // The inboxes agree with the streams, read through the other replica.
    const drained = async (on: MeshReplica, agent: string): Promise<[string, string, string | null][]> => {
      const page = (await callTool(on.url, key[agent] ?? '', 'drain_inbox', { page_size: 500 })) as { diffs: Diff[] };
      return page.diffs.map((d) => [d.op, d.node_id, d.supersedes]);
    };
    expect(await drained(b, 'told')).toEqual(live(onA));
    expect(await drained(a, 'matched')).toEqual(live(onB));
  });
});
