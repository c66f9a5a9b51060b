/**
 * Gossip across two replicas over a real nats-server: store on replica A → live push on an SSE
 * stream held by replica B (p50/p99, against the store round trip itself), and diffs delivered
 * per second to many live streams against the rate the stores produce them.
 */
import { performance } from 'node:perf_hooks';
import { createKeyAdministration } from '../src/auth/key-administration.js';
import { createEmbedder } from '../src/embed/create-embedder.js';
import { NatsBus } from '../src/mesh/nats-bus.js';
import { callTool, startMeshReplica } from '../test/support/mesh/mesh-replica.js';
import type { MeshReplica } from '../test/support/mesh/mesh-replica.js';
import { openSse } from '../test/support/sse-client.js';
import type { SseConnection } from '../test/support/sse-client.js';
import { waitFor } from '../test/support/wait-for.js';
import { NATS_SERVER_BINARY, natsServerInstalled, startNatsServer } from '../test/support/nats-server.js';
import { percentile } from './harness/section.js';
import type { BenchRow, BenchSection } from './harness/section.js';
import { startWireDatabase } from './harness/wire-database.js';

const TENANT = 'bench';
const INTEREST = 'the checkout service latency budget';
const LATENCY_SAMPLES = Number(process.env.HYPHAE_BENCH_MESH_SAMPLES ?? 200);
const FANOUT_STREAMS = Number(process.env.HYPHAE_BENCH_MESH_STREAMS ?? 16);
const FANOUT_STORES = Number(process.env.HYPHAE_BENCH_MESH_STORES ?? 150);
const STORE_CONCURRENCY = 8;

export async function runMeshBench(): Promise<BenchSection> {
  // A missing prerequisite is a failed section (exit code 1), never a row of zeros.
  if (!natsServerInstalled()) throw new Error(`the mesh bench needs ${NATS_SERVER_BINARY}, which was not found (apt-get install -y nats-server)`);
  const nats = await startNatsServer();
  const embedder = await createEmbedder({ kind: 'hash' });
  const database = await startWireDatabase(embedder);
  const replicas: MeshReplica[] = [];
  const streams: SseConnection[] = [];
  try {
    for (const name of ['bench-a', 'bench-b']) {
      const bus = await NatsBus.connect({ servers: nats.url, name });
      replicas.push(await startMeshReplica({ name, db: await database.connect(8), bus, embedder, refreshIntervalMs: 600_000 }));
    }
    const [a, b] = replicas as [MeshReplica, MeshReplica];
    const admin = createKeyAdministration(a.db);
    const writer = (await admin.createKey({ tenant: TENANT, agent: 'writer' })).key;
    const store = (i: number): Promise<Record<string, unknown>> =>
      callTool(a.url, writer, 'store', { content: `${INTEREST} #${i}`, cell_type: 'Fact', salience: 0.9 });

    // Latency: one owner streaming on B, sequential stores on A.
    const reader = (await admin.createKey({ tenant: TENANT, agent: 'reader' })).key;
    await callTool(b.url, reader, 'place_beacon', { text: INTEREST, threshold: 0.3 });
    const live = await openSse(`${b.url}/mcp`, { 'x-hyphae-key': reader });
    streams.push(live);
    await waitFor(() => b.feed.openStreams === 1);
    const storeRtt: number[] = [];
    const push: number[] = [];
    for (let i = 0; i < 20 + LATENCY_SAMPLES; i += 1) {
      const seen = live.events.length;
      const started = performance.now();
      await store(i);
      const stored = performance.now();
      await waitFor(() => live.events.length > seen, 1);
      if (i < 20) continue;
      storeRtt.push(stored - started);
      push.push((live.events[seen]?.receivedAt ?? Number.NaN) - started);
    }
    live.close();

    // Throughput: many owners streaming on B, concurrent stores on A.
    const fanout: SseConnection[] = [];
    const ownerKeys: string[] = [];
    for (let s = 0; s < FANOUT_STREAMS; s += 1) {
      const key = (await admin.createKey({ tenant: TENANT, agent: `owner-${s}` })).key;
      ownerKeys.push(key);
      await callTool(b.url, key, 'place_beacon', { text: INTEREST, threshold: 0.3 });
      fanout.push(await openSse(`${b.url}/mcp`, { 'x-hyphae-key': key }));
    }
    streams.push(...fanout);
    await waitFor(() => b.feed.openStreams === FANOUT_STREAMS);
    const expected = FANOUT_STREAMS * FANOUT_STORES;
    const started = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: STORE_CONCURRENCY }, async () => {
        while (next < FANOUT_STORES) await store(1_000 + next++);
      }),
    );
    const producedMs = performance.now() - started;
    await waitFor(() => fanout.every((sse) => sse.events.length >= FANOUT_STORES), 2);
    const deliveredMs = Math.max(...fanout.map((sse) => sse.events[FANOUT_STORES - 1]?.receivedAt ?? Number.NaN)) - started;
    const produced = expected / (producedMs / 1000);
    const delivered = expected / (deliveredMs / 1000);

    for (const sse of fanout) sse.close();

    // Resume throughput: the same owners reconnect with Last-Event-ID 0 and catch up from PostgreSQL.
    const resumeStarted = performance.now();
    const resumed = await Promise.all(
      fanout.map((_, s) => openSse(`${b.url}/mcp`, { 'x-hyphae-key': ownerKeys[s] ?? '', 'last-event-id': '0' })),
    );
    streams.push(...resumed);
    await waitFor(() => resumed.every((sse) => sse.events.length >= FANOUT_STORES), 2);
    const resumedMs = Math.max(...resumed.map((sse) => sse.events[FANOUT_STORES - 1]?.receivedAt ?? Number.NaN)) - resumeStarted;

    const storeP50 = percentile(storeRtt, 50);
    const rows: BenchRow[] = [
      { metric: 'store round trip p50 (replica A, POST /mcp)', value: storeP50, unit: 'ms', note: `${LATENCY_SAMPLES} sequential stores` },
      {
        metric: 'store→live push p50 (A → NATS → SSE on B)',
        value: percentile(push, 50),
        unit: 'ms',
        baseline: storeP50,
        ratio: percentile(push, 50) / storeP50,
        note: 'baseline: the store round trip',
      },
      {
        metric: 'store→live push p99 (A → NATS → SSE on B)',
        value: percentile(push, 99),
        unit: 'ms',
        baseline: percentile(storeRtt, 99),
        ratio: percentile(push, 99) / percentile(storeRtt, 99),
        note: 'baseline: store round trip p99',
      },
      {
        metric: 'diffs delivered per second (live streams on B)',
        value: delivered,
        unit: 'diffs/s',
        baseline: produced,
        ratio: delivered / produced,
        target: '≈ 1× (push keeps up)',
        note: `${FANOUT_STREAMS} streams × ${FANOUT_STORES} stores, ${STORE_CONCURRENCY} concurrent; baseline: diffs committed per second`,
      },
      {
        metric: 'diffs delivered per second on resume (Last-Event-ID catch-up)',
        value: expected / (resumedMs / 1000),
        unit: 'diffs/s',
        baseline: delivered,
        ratio: expected / (resumedMs / 1000) / delivered,
        note: `${FANOUT_STREAMS} streams reconnecting at once, ${FANOUT_STORES} diffs each from PostgreSQL; baseline: live delivery rate`,
      },
    ];
    return { name: 'mesh', rows };
  } finally {
    for (const sse of streams) sse.close();
    await Promise.all(replicas.map((replica) => replica.close()));
    await database.close();
    await embedder.close();
    await nats.stop();
  }
}
