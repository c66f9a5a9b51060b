/**
 * Claude Code channel events as a host receives them: an official SDK client over stdio to a
 * spawned `hyphae mcp --remote` bridged to replica B, while a writer stores on replica A (two
 * replicas on one database, a real nats-server between them). Per store: store → inbox row (the
 * diff row commits with the store, so the store round trip bounds it) and store → channel event in
 * the host, p50/p99 and their ratio; and CPU per memory — the process holding both replicas and
 * the bridge process — against the same stores with the channel declined (the bridge run with
 * HYPHAE_MCP_CHANNEL=off, its stream still carrying list_changed), measured in the same run.
 */
import { performance } from 'node:perf_hooks';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport, getDefaultEnvironment } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResourceListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { createKeyAdministration } from '../src/auth/key-administration.js';
import { createEmbedder } from '../src/embed/create-embedder.js';
import { NatsBus } from '../src/mesh/nats-bus.js';
import { callTool, startMeshReplica } from '../test/support/mesh/mesh-replica.js';
import type { MeshReplica } from '../test/support/mesh/mesh-replica.js';
import { waitFor } from '../test/support/wait-for.js';
import { NATS_SERVER_BINARY, natsServerInstalled, startNatsServer } from '../test/support/nats-server.js';
import { processCpuMs } from './harness/process-cpu.js';
import { HYPHAE_BIN } from './harness/processes.js';
import { percentile } from './harness/section.js';
import type { BenchRow, BenchSection } from './harness/section.js';
import { startWireDatabase } from './harness/wire-database.js';

const TENANT = 'bench';
const INTEREST = 'the checkout service latency budget';
const SAMPLES = Number(process.env.HYPHAE_BENCH_CHANNEL_SAMPLES ?? 150);
const WARMUP = 10;
/** Every sample must go out alone, not in a digest: the pace is raised for the bench, and the samples kept under it. */
const MAX_PER_MINUTE = 600;

const ChannelNotificationSchema = z.object({
  method: z.literal('notifications/claude/channel'),
  params: z.object({ content: z.string(), meta: z.record(z.string(), z.string()) }),
});

interface BridgedHost {
  readonly client: Client;
  readonly pid: number;
  /** node_id → when its channel event reached the host. */
  readonly heard: Map<string, number>;
  readonly listChanged: number;
  close(): Promise<void>;
}

async function bridgedHost(url: string, key: string, channel: boolean): Promise<BridgedHost> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [HYPHAE_BIN, 'mcp', '--remote', url],
    env: { ...getDefaultEnvironment(), HYPHAE_API_KEY: key, HYPHAE_LOG_LEVEL: 'warn', HYPHAE_MCP_CHANNEL: channel ? 'on' : 'off' },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'channel-bench-host', version: '1.0.0' });
  const heard = new Map<string, number>();
  let listChanged = 0;
  client.setNotificationHandler(ChannelNotificationSchema, async (notification) => {
    const nodeId = notification.params.meta.node_id;
    if (nodeId !== undefined) heard.set(nodeId, performance.now());
  });
  client.setNotificationHandler(ResourceListChangedNotificationSchema, async () => {
    listChanged += 1;
  });
  await client.connect(transport);
  return {
    client,
    pid: transport.pid ?? 0,
    heard,
    get listChanged(): number {
      return listChanged;
    },
    close: () => client.close(),
  };
}

/** CPU seconds a process has used (user + system), from /proc. */
function processCpuSeconds(pid: number): number {
  return processCpuMs(pid) / 1000;
}

function ownCpuSeconds(): number {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
}

export async function runChannelBench(): Promise<BenchSection> {
  if (!natsServerInstalled()) throw new Error(`the channel bench needs ${NATS_SERVER_BINARY}, which was not found (apt-get install -y nats-server)`);
  if (SAMPLES + WARMUP > MAX_PER_MINUTE - 10) throw new Error(`HYPHAE_BENCH_CHANNEL_SAMPLES must stay under ${MAX_PER_MINUTE - 10 - WARMUP}, so no sample is digested`);
  const nats = await startNatsServer();
  const embedder = await createEmbedder({ kind: 'hash' });
  const database = await startWireDatabase(embedder);
  const replicas: MeshReplica[] = [];
  const hosts: BridgedHost[] = [];
  try {
    for (const name of ['bench-a', 'bench-b']) {
      const bus = await NatsBus.connect({ servers: nats.url, name });
      replicas.push(
        await startMeshReplica({ name, db: await database.connect(8), bus, embedder, refreshIntervalMs: 600_000, env: { HYPHAE_MCP_CHANNEL_MAX_PER_MINUTE: String(MAX_PER_MINUTE) } }),
      );
    }
    const [a, b] = replicas as [MeshReplica, MeshReplica];
    const admin = createKeyAdministration(a.db);
    const writer = (await admin.createKey({ tenant: TENANT, agent: 'writer', trust: 0.8 })).key;
    const store = async (i: number): Promise<string> =>
      String((await callTool(a.url, writer, 'store', { content: `${INTEREST} #${i}`, cell_type: 'Fact', salience: 0.9 })).node_id);

    // With the channel: each store timed to its inbox row and to its event in the host.
    const reader = (await admin.createKey({ tenant: TENANT, agent: 'reader' })).key;
    await callTool(b.url, reader, 'place_beacon', { text: INTEREST, threshold: 0.3 });
    const host = await bridgedHost(`${b.url}/mcp`, reader, true);
    hosts.push(host);
    await waitFor(() => b.liveStream.openStreams === 1);
    const toInbox: number[] = [];
    const toEvent: number[] = [];
    let cpu = { own: 0, bridge: 0 };
    for (let i = 0; i < WARMUP + SAMPLES; i += 1) {
      if (i === WARMUP) cpu = { own: ownCpuSeconds(), bridge: processCpuSeconds(host.pid) };
      const started = performance.now();
      const nodeId = await store(i);
      const stored = performance.now();
      await waitFor(() => host.heard.has(nodeId), 1);
      if (i < WARMUP) continue;
      toInbox.push(stored - started);
      toEvent.push((host.heard.get(nodeId) ?? Number.NaN) - started);
    }
    const withChannel = { own: ownCpuSeconds() - cpu.own, bridge: (processCpuSeconds(host.pid)) - cpu.bridge };
    await host.close();

    // Declined: the same stores, the bridge's stream carrying list_changed only.
    const plain = (await admin.createKey({ tenant: TENANT, agent: 'plain-reader' })).key;
    await callTool(b.url, plain, 'place_beacon', { text: INTEREST, threshold: 0.3 });
    const plainHost = await bridgedHost(`${b.url}/mcp`, plain, false);
    hosts.push(plainHost);
    await waitFor(() => b.liveStream.openStreams === 1);
    let plainCpu = { own: 0, bridge: 0 };
    for (let i = 0; i < WARMUP + SAMPLES; i += 1) {
      if (i === WARMUP) plainCpu = { own: ownCpuSeconds(), bridge: processCpuSeconds(plainHost.pid) };
      const heard = plainHost.listChanged;
      await store(10_000 + i);
      await waitFor(() => plainHost.listChanged > heard, 1);
    }
    const declined = { own: ownCpuSeconds() - plainCpu.own, bridge: (processCpuSeconds(plainHost.pid)) - plainCpu.bridge };

    const perEvent = (seconds: number): number => (seconds / SAMPLES) * 1e6;
    const rows: BenchRow[] = [
      { metric: 'store → inbox row p50 (replica A; the row commits with the store)', value: percentile(toInbox, 50), unit: 'ms', note: `${SAMPLES} sequential stores` },
      { metric: 'store → inbox row p99', value: percentile(toInbox, 99), unit: 'ms' },
      {
        metric: 'store → channel event p50 (A → NATS → B → GET /mcp → --remote → host)',
        value: percentile(toEvent, 50),
        unit: 'ms',
        baseline: percentile(toInbox, 50),
        ratio: percentile(toEvent, 50) / percentile(toInbox, 50),
        note: 'baseline: store → inbox row',
      },
      {
        metric: 'store → channel event p99',
        value: percentile(toEvent, 99),
        unit: 'ms',
        baseline: percentile(toInbox, 99),
        ratio: percentile(toEvent, 99) / percentile(toInbox, 99),
        note: 'baseline: store → inbox row p99',
      },
      {
        metric: 'CPU per memory, both replicas (store, relay, feed, channel event)',
        value: perEvent(withChannel.own),
        unit: 'µs',
        baseline: perEvent(declined.own),
        ratio: withChannel.own / declined.own,
        note: 'baseline: the same stores, channel declined (list_changed only)',
      },
      {
        metric: 'CPU per memory, the --remote bridge process',
        value: perEvent(withChannel.bridge),
        unit: 'µs',
        baseline: perEvent(declined.bridge),
        ratio: withChannel.bridge / declined.bridge,
        note: 'baseline: the same bridge with HYPHAE_MCP_CHANNEL=off; /proc ticks are 10 ms',
      },
    ];
    return { name: 'channel', rows };
  } finally {
    await Promise.all(hosts.map((h) => h.close().catch(() => undefined)));
    await Promise.all(replicas.map((replica) => replica.close()));
    await database.close();
    await embedder.close();
    await nats.stop();
  }
}
