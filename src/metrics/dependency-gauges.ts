/**
 * What the process's dependencies look like at scrape time: the database pool, each readiness
 * check and the NATS connection. Every family is sampled when Prometheus scrapes, from samplers the
 * composition root registers, so a scrape shows the state now rather than at the last request.
 */
import { Counter, Gauge } from 'prom-client';
import type { Registry } from 'prom-client';
import type { ReadinessCheck } from '../core/readiness.js';

/** Structurally the store's `PoolStats`: sampled at scrape time. */
export interface DbPoolSample {
  readonly total: number;
  readonly idle: number;
  readonly waiting: number;
  /** The pool's size limit (HYPHAE_DB_POOL_MAX). */
  readonly max: number;
  /** Calls that gave up waiting for a connection since the pool opened. */
  readonly acquireTimeouts: number;
}


export interface DependencyGauges {
  /** Registers the pool sampler read on each scrape; the last registration wins. */
  trackDbPool(sample: () => DbPoolSample): void;
  /** Runs these checks on each scrape, each bounded by `timeoutMs`: hyphae_ready{check} 1 or 0. */
  trackReadiness(checks: readonly ReadinessCheck[], timeoutMs: number): void;
  /** hyphae_nats_connected{connection} follows `connected()` from now on. */
  trackNatsConnection(connection: NatsConnectionName, connected: () => boolean): void;
}

/** bus: an API pod's gossip connection; embed: a worker's, serving embedding requests. */
export type NatsConnectionName = 'bus' | 'embed';

/** hyphae_nats_connected on `registry`, with nothing exported until a connection is tracked (a process without NATS). */
export function registerNatsConnectionGauge(registry: Registry): (connection: NatsConnectionName, connected: () => boolean) => void {
  const tracked = new Map<NatsConnectionName, () => boolean>();
  new Gauge({
    name: 'hyphae_nats_connected',
    help: 'NATS connections: 1 while connected, by connection',
    labelNames: ['connection'] as const,
    registers: [registry],
    collect(): void {
      for (const [connection, connected] of tracked) this.set({ connection }, connected() ? 1 : 0);
    },
  });
  return (connection, connected) => {
    tracked.set(connection, connected);
  };
}

const EMPTY_POOL: DbPoolSample = { total: 0, idle: 0, waiting: 0, max: 0, acquireTimeouts: 0 };

async function passes(check: ReadinessCheck, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<boolean>((resolve) => {
    timer = setTimeout(() => resolve(false), timeoutMs);
  });
  try {
    return await Promise.race([check.check().then(() => true), timeout]);
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

export function registerDependencyGauges(registry: Registry): DependencyGauges {
  let pool: (() => DbPoolSample) | undefined;
  new Gauge({
    name: 'hyphae_db_pool_connections',
    help: 'Database pool connections by state',
    labelNames: ['state'] as const,
    registers: [registry],
    collect(): void {
      const sample = pool?.() ?? EMPTY_POOL;
      this.set({ state: 'in_use' }, Math.max(0, sample.total - sample.idle));
      this.set({ state: 'idle' }, sample.idle);
      this.set({ state: 'waiting' }, sample.waiting);
    },
  });
  new Gauge({
    name: 'hyphae_db_pool_max_connections',
    help: 'Database pool size limit',
    registers: [registry],
    collect(): void {
      this.set((pool?.() ?? EMPTY_POOL).max);
    },
  });
  let countedTimeouts = 0;
  new Counter({
    name: 'hyphae_db_acquire_timeouts_total',
    help: 'Calls that gave up waiting for a database connection (answered 503)',
    registers: [registry],
    collect(): void {
      const seen = (pool?.() ?? EMPTY_POOL).acquireTimeouts;
      if (seen > countedTimeouts) this.inc(seen - countedTimeouts);
      countedTimeouts = Math.max(countedTimeouts, seen);
    },
  });

  let readiness: { readonly checks: readonly ReadinessCheck[]; readonly timeoutMs: number } | undefined;
  new Gauge({
    name: 'hyphae_ready',
    help: 'Readiness checks run at scrape time: 1 when the dependency answers, by check',
    labelNames: ['check'] as const,
    registers: [registry],
    async collect(): Promise<void> {
      if (readiness === undefined) return;
      const { checks, timeoutMs } = readiness;
      const results = await Promise.all(checks.map((c) => passes(c, timeoutMs)));
      checks.forEach((c, i) => this.set({ check: c.name }, results[i] ? 1 : 0));
    },
  });

  const trackNats = registerNatsConnectionGauge(registry);

  return {
    trackDbPool(sample): void {
      pool = sample;
    },
    trackReadiness(checks, timeoutMs): void {
      readiness = { checks, timeoutMs };
    },
    trackNatsConnection: trackNats,
  };
}
