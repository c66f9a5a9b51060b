/**
 * The composition root of a server process (`hyphae serve`, embedded `hyphae mcp`): configuration
 * → database + migrations → embedder → bus (in-process, or NATS when HYPHAE_NATS_URL is set) →
 * outbox relay and live diff feed → memory facade, plus the metrics and readiness probes the
 * HTTP surface reports. close() stops everything in dependency order.
 */
import type { HyphaeConfig } from '../core/config.js';
import { createHyphaeMetrics, type HyphaeMetrics } from '../http/metrics.js';
import type { ReadinessProbe } from '../http/health-routes.js';
import type { Bus } from '../mesh/bus.js';
import { LiveDiffFeed } from '../mesh/live-diff-feed.js';
import { MemoryBus } from '../mesh/memory-bus.js';
import { NatsBus } from '../mesh/nats-bus.js';
import { OutboxRelay } from '../mesh/outbox-relay.js';
import type { ManagedMemoryFacade } from '../service/create-memory-facade.js';
import { createRuntime, type HyphaeRuntime } from '../service/runtime.js';
import { UnavailableError } from '../core/errors.js';
import { createEmbedder } from '../embed/create-embedder.js';
import { meteredEmbedder } from '../embed/metered-embedder.js';
import { meteredFacade } from '../service/metered-facade.js';
import { embedderConfigFrom } from './embedder-config.js';
import type { Embedder } from '../embed/embedder.js';
import type { FacadeConfig } from '../service/facade-config.js';
import type { Db } from '../store/db.js';

export interface ProcessRuntime {
  readonly config: HyphaeConfig;
  readonly runtime: HyphaeRuntime;
  /** The runtime's facade with latencies and deliveries reported to `metrics`: what surfaces call. */
  readonly facade: ManagedMemoryFacade;
  readonly bus: Bus;
  readonly relay: OutboxRelay;
  readonly feed: LiveDiffFeed;
  readonly metrics: HyphaeMetrics;
  readonly readiness: readonly ReadinessProbe[];
  close(): Promise<void>;
}

/**
 * What a caller already holds, used instead of what the configuration would open, and the
 * timings of the background loops — for tests that run several replicas of this very runtime in
 * one process. The runtime owns the parts from here and closes them.
 */
export interface ProcessRuntimeParts {
  readonly db?: Db;
  readonly bus?: Bus;
  readonly embedder?: Embedder;
  readonly relayPollMs?: number;
  readonly relayMaxBackoffMs?: number;
  readonly feedRefreshMs?: number;
  readonly authCacheTtlMs?: number;
  /** Facade settings beyond the ones the configuration names. */
  readonly facade?: Partial<FacadeConfig>;
}

export interface ProcessRuntimeOptions {
  /** Names the process in the PGlite data-folder lock, e.g. "hyphae serve". */
  readonly command: string;
  /** Where background failures are reported (never stdout: stdio MCP owns it). */
  readonly onBackgroundError: (error: unknown) => void;
  readonly parts?: ProcessRuntimeParts;
}

async function connectBus(config: HyphaeConfig): Promise<Bus> {
  if (config.natsUrl === undefined) return new MemoryBus();
  try {
    return await NatsBus.connect({ servers: config.natsUrl, name: 'hyphae-serve' });
  } catch (error) {
    throw new UnavailableError(`cannot connect to NATS at HYPHAE_NATS_URL (${redactUrl(config.natsUrl)})`, { cause: error });
  }
}

/** Credentials in a URL never reach a message. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable url>';
  }
}

export async function startProcessRuntime(config: HyphaeConfig, options: ProcessRuntimeOptions): Promise<ProcessRuntime> {
  const metrics = createHyphaeMetrics();
  const parts = options.parts ?? {};
  const bus = parts.bus ?? (await connectBus(config));
  let relay: OutboxRelay | undefined;
  let feed: LiveDiffFeed | undefined;
  let runtime: HyphaeRuntime;
  try {
    runtime = await createRuntime(config, {
      command: options.command,
      embedder: meteredEmbedder(parts.embedder ?? (await createEmbedder(embedderConfigFrom(config))), metrics),
      ...(parts.db === undefined ? {} : { db: parts.db }),
      ...(parts.authCacheTtlMs === undefined ? {} : { authCacheTtlMs: parts.authCacheTtlMs }),
      facade: {
        maxBeaconsPerAgent: config.maxBeaconsPerAgent,
        maxStreamsPerKey: config.maxStreamsPerKey,
        maxStreamsPerProcess: config.maxStreamsPerProcess,
        maxInboxDiffs: config.maxInboxDiffs,
        maxCellsPerTenant: config.maxCellsPerTenant,
        maxOpenSessionsPerAgent: config.maxOpenSessionsPerAgent,
        ...(config.dedupSimilarity === undefined ? {} : { nearDuplicateSimilarity: config.dedupSimilarity }),
        ...parts.facade,
      },
      onBackgroundError: options.onBackgroundError,
      mesh: async (db) => {
        relay = new OutboxRelay({
          db,
          bus,
          metrics,
          onError: options.onBackgroundError,
          ...(parts.relayPollMs === undefined ? {} : { pollIntervalMs: parts.relayPollMs }),
          ...(parts.relayMaxBackoffMs === undefined ? {} : { maxBackoffMs: parts.relayMaxBackoffMs }),
        });
        feed = new LiveDiffFeed({
          db,
          bus,
          onError: options.onBackgroundError,
          ...(parts.feedRefreshMs === undefined ? {} : { refreshIntervalMs: parts.feedRefreshMs }),
        });
        const liveFeed = feed;
        const signal = relay;
        return {
          outbox: {
            diffsCommitted: (diffs) => {
              metrics.countDiffsProduced(diffs.length);
              metrics.countInboxTrimmed(diffs.reduce((sum, written) => sum + written.trimmed, 0));
              signal.diffsCommitted(diffs);
            },
          },
          diffFeed: liveFeed,
          onBeaconsChanged: (tenantId, agent) => void liveFeed.beaconsChanged(tenantId, agent),
          close: async () => {
            await relay?.stop();
            await liveFeed.close();
          },
        };
      },
    });
  } catch (error) {
    await bus.close().catch(() => undefined);
    throw error;
  }
  const mesh = { relay, feed };
  if (mesh.relay === undefined || mesh.feed === undefined) throw new Error('the runtime built no mesh');
  mesh.relay.start();
  const db = runtime.db;
  metrics.trackDbPool(() => {
    const stats = db.poolStats();
    return { total: stats.total, idle: stats.idle, waiting: stats.waiting };
  });
  const readiness: ReadinessProbe[] = [
    {
      name: 'database',
      check: () => runtime.ping(),
    },
  ];
  if (config.natsUrl !== undefined) {
    readiness.push({
      name: 'nats',
      check: async () => {
        if (!bus.isConnected()) throw new UnavailableError('NATS is not connected');
      },
    });
  }
  let closing: Promise<void> | undefined;
  return {
    config,
    runtime,
    facade: meteredFacade(runtime.facade, metrics),
    bus,
    relay: mesh.relay,
    feed: mesh.feed,
    metrics,
    readiness,
    close(): Promise<void> {
      // The runtime closes the mesh hooks (relay flush, feed) before the database; the bus goes last.
      closing ??= runtime.close().finally(() => bus.close());
      return closing;
    },
  };
}
