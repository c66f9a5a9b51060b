import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Diff } from '../../src/core/entities.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { DIFF_NOTIFICATION_METHOD } from '../../src/mcp/protocol/diff-extension.js';
import { STREAM_DROPPED_METHOD } from '../../src/mcp/features/push/push-drop.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { parsePrometheusText } from '../support/prometheus-text.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { callTool, startMeshReplica } from '../support/mesh/mesh-replica.js';
import type { MeshReplica } from '../support/mesh/mesh-replica.js';
import { openSse } from '../support/sse-client.js';
import type { SseConnection } from '../support/sse-client.js';
import { waitFor } from '../support/wait-for.js';

interface DiffNotification {
  readonly jsonrpc: string;
  readonly method: string;
  readonly params: { readonly diff: Diff };
}

const messagesOf = (sse: SseConnection): { method: string; params: Record<string, unknown> }[] =>
  sse.events.map((e) => JSON.parse(e.data) as { method: string; params: Record<string, unknown> });
const notificationsOf = (sse: SseConnection): DiffNotification[] =>
  messagesOf(sse).filter((m) => m.method === DIFF_NOTIFICATION_METHOD) as unknown as DiffNotification[];
const INTEREST = 'the deploy pipeline needs a manual approval step';

describe('GET /mcp live stream (SSE) on one replica', () => {
  let embedder: Embedder;
  let replica: MeshReplica;
  let writerKey: string;
  let readerKey: string;
  const streams: SseConnection[] = [];

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    const db = await createMeshTestDb(embedder.dimension);
    replica = await startMeshReplica({ name: 'solo', db, bus: new MemoryBus(), embedder, heartbeatMs: 100 });
    const keys = createKeyAdministration(db);
    writerKey = (await keys.createKey({ tenant: 'acme', agent: 'writer' })).key;
    readerKey = (await keys.createKey({ tenant: 'acme', agent: 'reader' })).key;
    await callTool(replica.url, readerKey, 'place_beacon', { text: INTEREST, threshold: 0.5 });
  });

  afterAll(async () => {
    for (const stream of streams) stream.close();
    await replica.close();
    await embedder.close();
  });

  async function open(headers: Record<string, string>): Promise<SseConnection> {
    const stream = await openSse(`${replica.url}/mcp`, headers);
    streams.push(stream);
    return stream;
  }

  it('answers 405 without Accept: text/event-stream and 401 without a valid key', async () => {
    const plain = await fetch(`${replica.url}/mcp`, { headers: { 'x-hyphae-key': readerKey, accept: 'application/json' } });
    expect(plain.status).toBe(405);
    expect(plain.headers.get('allow')).toBe('POST');
    expect(await plain.json()).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 } });
    const anonymous = await fetch(`${replica.url}/mcp`, { headers: { accept: 'text/event-stream' } });
    expect(anonymous.status).toBe(401);
    const wrong = await fetch(`${replica.url}/mcp`, { headers: { accept: 'text/event-stream', 'x-hyphae-key': 'hyk_nope' } });
    expect(wrong.status).toBe(401);
    const badResume = await fetch(`${replica.url}/mcp`, {
      headers: { accept: 'text/event-stream', 'x-hyphae-key': readerKey, 'last-event-id': 'yesterday' },
    });
    expect(badResume.status).toBe(400);
  });

  it('pushes each new diff as a JSON-RPC notification whose event id is its seq', async () => {
    const stream = await open({ 'x-hyphae-key': readerKey });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
    await waitFor(() => replica.liveStream.openStreams === 1);
    const stored = await callTool(replica.url, writerKey, 'store', { content: INTEREST, cell_type: 'Decision', salience: 0.9 });
    await waitFor(() => stream.events.length === 1);
    const [notification] = notificationsOf(stream);
    expect(notification).toMatchObject({ jsonrpc: '2.0', method: DIFF_NOTIFICATION_METHOD });
    expect(notification?.params.diff).toMatchObject({ node_id: stored.node_id, op: 'created', source_agent: 'writer' });
    expect(stream.events[0]?.id).toBe(String(notification?.params.diff.seq));
    expect(stream.events[0]?.event).toBe('message');
    // The writer has no beacon: nothing for it, and its own stream stays empty.
    const writerStream = await open({ 'x-hyphae-key': writerKey });
    await callTool(replica.url, writerKey, 'store', { content: INTEREST, cell_type: 'Risk', salience: 0.9 });
    await waitFor(() => stream.events.length === 2);
    expect(writerStream.events).toEqual([]);
  });

  it('resumes exactly after Last-Event-ID, backlog first, then live, no duplicates', async () => {
    const { diffs } = (await callTool(replica.url, readerKey, 'pull_diffs', { since: '1970-01-01T00:00:00Z' })) as { diffs: Diff[] };
    const seqs = diffs.map((d) => d.seq);
    expect(seqs.length).toBeGreaterThanOrEqual(2);
    const resumeAfter = seqs[0] ?? 0;
    const stream = await open({ 'x-hyphae-key': readerKey, 'last-event-id': String(resumeAfter) });
    await waitFor(() => stream.events.length === seqs.length - 1);
    await callTool(replica.url, writerKey, 'store', { content: INTEREST, cell_type: 'Lesson', salience: 0.9 });
    await waitFor(() => stream.events.length === seqs.length);
    const received = notificationsOf(stream).map((n) => n.params.diff.seq);
    const last = seqs[seqs.length - 1] ?? 0;
    expect(received).toEqual([...seqs.slice(1), last + 1]);
  });

  it('treats a Last-Event-ID beyond the inbox head as the head (the stream does not stall)', async () => {
    const stream = await open({ 'x-hyphae-key': readerKey, 'last-event-id': '999999' });
    await waitFor(() => replica.liveStream.openStreams >= 1 && stream.status === 200);
    const stored = await callTool(replica.url, writerKey, 'store', { content: INTEREST, cell_type: 'Pattern', salience: 0.9 });
    await waitFor(() => stream.events.length === 1);
    expect(notificationsOf(stream)[0]?.params.diff.node_id).toBe(stored.node_id);
  });

  it('sends heartbeat comments while idle', async () => {
    const stream = await open({ 'x-hyphae-key': readerKey });
    await waitFor(() => stream.comments.filter((c) => c === 'heartbeat').length >= 2);
    expect(stream.events).toEqual([]);
  });

  it('releases the subscription when the client goes away', async () => {
    for (const stream of streams.splice(0)) stream.close();
    await waitFor(() => replica.liveStream.openStreams === 0 && replica.feed.openStreams === 0);
    const stream = await open({ 'x-hyphae-key': readerKey });
    await waitFor(() => replica.feed.openStreams === 1);
    stream.close();
    await stream.ended;
    await waitFor(() => replica.liveStream.openStreams === 0 && replica.feed.openStreams === 0);
  });
});

describe('GET /mcp with a backlog larger than the stream buffer', () => {
  it('ends each stream after what it wrote; resuming by Last-Event-ID gets everything, once, in order', async () => {
    const embedder = await createEmbedder({ kind: 'hash' });
    const db = await createMeshTestDb(embedder.dimension);
    const replica = await startMeshReplica({ name: 'small-buffer', db, bus: new MemoryBus(), embedder, maxBufferedBytes: 1_500 });
    try {
      const keys = createKeyAdministration(db);
      const writerKey = (await keys.createKey({ tenant: 'acme', agent: 'writer' })).key;
      const readerKey = (await keys.createKey({ tenant: 'acme', agent: 'reader' })).key;
      await callTool(replica.url, readerKey, 'place_beacon', { text: INTEREST, threshold: 0.5 });
      const total = 12;
      for (let i = 0; i < total; i += 1) {
        await callTool(replica.url, writerKey, 'store', { content: `${INTEREST} ${'x'.repeat(200)} ${i}`, cell_type: 'Fact', salience: 0.9 });
      }
      const received: number[] = [];
      let connections = 0;
      let dropped = 0;
      while (received.length < total) {
        const stream = await openSse(`${replica.url}/mcp`, { 'x-hyphae-key': readerKey, 'last-event-id': String(received.at(-1) ?? 0) });
        connections += 1;
        let ended = false;
        void stream.ended.then(() => (ended = true));
        await waitFor(() => ended || received.length + notificationsOf(stream).length >= total);
        stream.close();
        received.push(...notificationsOf(stream).map((n) => n.params.diff.seq));
        // A stream ended by the bound says so in its last message, and the replica counts it: backlog when
        // the catch-up alone passed the bound, slow_reader when the socket had not taken it yet.
        const last = messagesOf(stream).at(-1);
        if (ended) expect(last).toMatchObject({ method: STREAM_DROPPED_METHOD, params: { reason: expect.stringMatching(/^(backlog|slow_reader)$/), max_buffered_bytes: 1_500 } });
        if (last?.method === STREAM_DROPPED_METHOD) dropped += 1;
        if (connections > total) break;
      }
      expect(received).toEqual(Array.from({ length: total }, (_, i) => i + 1));
      expect(connections).toBeGreaterThan(1);
      expect(dropped).toBeGreaterThanOrEqual(connections - 1);
      const families = parsePrometheusText(await replica.metrics.render());
      const drops = families.get('hyphae_live_streams_dropped_total')?.samples ?? [];
      expect(drops.reduce((sum, sample) => sum + sample.value, 0)).toBe(dropped);
      // Every transport and reason is exported from the first scrape; only sse counted drops here.
      expect(new Set(drops.filter((sample) => sample.value > 0).map((sample) => sample.labels.transport))).toEqual(new Set(['sse']));
    } finally {
      await replica.close();
      await embedder.close();
    }
  });
});
