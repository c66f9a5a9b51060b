/**
 * The gossip mesh of a server process: the bus (in-process, or NATS when HYPHAE_NATS_URL is set),
 * the outbox relay that publishes committed diffs on it, and the live diff feed that streams them
 * to connected agents — plus the hooks the memory facade signals them through.
 */
import type { HyphaeConfig } from '../core/config.js';
import { UnavailableError } from '../core/errors.js';
import type { Bus } from '../mesh/bus.js';
import { LiveDiffFeed } from '../mesh/live-diff-feed.js';
import { MemoryBus } from '../mesh/memory-bus.js';
import { NatsBus } from '../mesh/nats-bus.js';
import { OutboxRelay } from '../mesh/outbox-relay.js';
import type { HyphaeMetrics } from '../metrics/index.js';
import type { MemoryFacadeDeps } from '../service/index.js';
import type { Db } from '../store/db.js';

export async function connectBus(config: HyphaeConfig): Promise<Bus> {
  const { natsUrl } = config.gossip;
  if (natsUrl === undefined) return new MemoryBus();
  try {
    return await NatsBus.connect({ servers: natsUrl, name: 'hyphae-serve' });
  } catch (error) {
    throw new UnavailableError(`cannot connect to NATS at HYPHAE_NATS_URL (${redactUrl(natsUrl)})`, { cause: error });
  }
}

/** Credentials in a URL never reach a message. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== '') parsed.password = '***';
    return parsed.toString();
  } catch {
    return '<unparseable url>';
  }
}

export interface MeshTimings {
  readonly relayPollMs?: number;
  readonly relayMaxBackoffMs?: number;
  readonly feedRefreshMs?: number;
}

export interface Mesh {
  readonly relay: OutboxRelay;
  readonly feed: LiveDiffFeed;
  /** What the memory facade signals the mesh through. */
  readonly facadeHooks: Required<Pick<MemoryFacadeDeps, 'outbox' | 'diffFeed' | 'onBeaconsChanged'>>;
  /** Flushes the outbox and ends the live streams (the bus stays open). */
  close(): Promise<void>;
}

export function createMesh(db: Db, bus: Bus, metrics: HyphaeMetrics, onError: (error: unknown) => void, timings: MeshTimings): Mesh {
  const relay = new OutboxRelay({
    db,
    bus,
    metrics,
    onError,
    ...(timings.relayPollMs === undefined ? {} : { pollIntervalMs: timings.relayPollMs }),
    ...(timings.relayMaxBackoffMs === undefined ? {} : { maxBackoffMs: timings.relayMaxBackoffMs }),
  });
  const feed = new LiveDiffFeed({
    db,
    bus,
    metrics,
    onError,
    ...(timings.feedRefreshMs === undefined ? {} : { refreshIntervalMs: timings.feedRefreshMs }),
  });
  return {
    relay,
    feed,
    facadeHooks: {
      outbox: {
        diffsCommitted: (diffs) => {
          metrics.countDiffsProduced(diffs.length);
          metrics.countInboxTrimmed(diffs.reduce((sum, written) => sum + written.trimmed, 0));
          relay.diffsCommitted(diffs);
        },
      },
      diffFeed: feed,
      onBeaconsChanged: (tenantId, agent) => void feed.beaconsChanged(tenantId, agent),
    },
    async close(): Promise<void> {
      await relay.stop();
      await feed.close();
    },
  };
}
