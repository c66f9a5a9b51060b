/**
 * The composition root of every Hyphae process that serves memory (`serve`, `mcp`, `hook`, tests,
 * benches), in this order: configuration → database (migrated for the embedder) → embedder → bus →
 * outbox relay and live feed → memory facade and background upkeep → metering. close() undoes it
 * in reverse.
 */
import type { HyphaeConfig } from '../core/config.js';
import { UnavailableError } from '../core/errors.js';
import { meteredEmbedder } from '../embed/metered-embedder.js';
import { createHyphaeMetrics } from '../metrics/index.js';
import { meteredFacade } from '../service/index.js';
import { pingDatabase } from '../store/database-probe.js';
import { migrate, readEmbeddingIdentity } from '../store/migrator.js';
import { startBackgroundMaintenance } from './background-maintenance.js';
import { openConfiguredDatabase } from './configured-database.js';
import { createConfiguredEmbedder } from './configured-embedder.js';
import { createConfiguredFacade } from './configured-facade.js';
import type { HyphaeApp, HyphaeAppOptions, ReadinessCheck } from './hyphae-app.js';
import { connectBus, createMesh } from './mesh-wiring.js';
import { Teardown } from './teardown.js';

/** How long a scrape waits for each readiness check behind hyphae_ready (kubelets' probes get their own). */
const READINESS_SCRAPE_TIMEOUT_MS = 2_000;

export async function openHyphaeApp(config: HyphaeConfig, options: HyphaeAppOptions): Promise<HyphaeApp> {
  const parts = options.parts ?? {};
  const onError = options.onBackgroundError;
  const metrics = createHyphaeMetrics({ tenantLabel: config.feedback.metricsTenantLabel });
  const teardown = new Teardown();
  try {
    const db = parts.db ?? (await openConfiguredDatabase(config, options.command));
    teardown.add(() => db.close());
    const recordedModelId = parts.embedder === undefined ? (await readEmbeddingIdentity(db))?.modelId : undefined;
    const embedder = meteredEmbedder(parts.embedder ?? (await createConfiguredEmbedder(config, recordedModelId === undefined ? {} : { recordedModelId })), metrics);
    teardown.add(() => embedder.close());
    await migrate(db, { modelId: embedder.modelId, dimension: embedder.dimension });

    const bus = parts.bus ?? (await connectBus(config));
    teardown.add(() => bus.close());
    const mesh = createMesh(db, bus, metrics, onError, parts);
    teardown.add(() => mesh.close());

    const clock = (): Date => new Date();
    const facade = createConfiguredFacade({
      db,
      embedder,
      config,
      clock,
      hooks: mesh.facadeHooks,
      onBackgroundError: onError,
      ...(parts.authCacheTtlMs === undefined ? {} : { authCacheTtlMs: parts.authCacheTtlMs }),
      ...(parts.facade === undefined ? {} : { facade: parts.facade }),
    });
    teardown.add(() => facade.close());
    const upkeep = await startBackgroundMaintenance(db, {
      diffRetentionDays: facade.config.diffRetentionDays,
      recallLogRetentionDays: facade.config.recallLogRetentionDays,
      sweepExpired: () => facade.sweepExpired(),
      clock,
      onError,
      ...(parts.maintenanceCheckIntervalMs === undefined ? {} : { maintenanceCheckIntervalMs: parts.maintenanceCheckIntervalMs }),
    });
    teardown.add(() => upkeep.stop());
    mesh.relay.start();

    metrics.trackDbPool(() => db.poolStats());
    const readiness = readinessChecks(config, db, bus);
    metrics.trackReadiness(readiness, READINESS_SCRAPE_TIMEOUT_MS);
    if (config.gossip.natsUrl !== undefined) metrics.trackNatsConnection('bus', () => bus.isConnected());
    let closing: Promise<void> | undefined;
    return {
      config,
      facade: meteredFacade(facade, metrics),
      keyAdmin: facade.keyAdmin,
      db,
      embedder,
      bus,
      relay: mesh.relay,
      feed: mesh.feed,
      metrics,
      readiness,
      close(): Promise<void> {
        closing ??= teardown.run();
        return closing;
      },
    };
  } catch (error) {
    await teardown.abandon();
    throw error;
  }
}

function readinessChecks(config: HyphaeConfig, db: HyphaeApp['db'], bus: HyphaeApp['bus']): ReadinessCheck[] {
  const checks: ReadinessCheck[] = [{ name: 'database', check: () => pingDatabase(db) }];
  if (config.gossip.natsUrl !== undefined) {
    checks.push({
      name: 'nats',
      check: async () => {
        if (!bus.isConnected()) throw new UnavailableError('NATS is not connected');
      },
    });
  }
  return checks;
}
