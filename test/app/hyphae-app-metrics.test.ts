// The composition root wires the dependency gauges: hyphae_ready runs the readiness checks at
// scrape time, hyphae_nats_connected follows the bus, the pool gauges read the database's pool.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHyphaeApp, type HyphaeApp } from '../../src/app/index.js';
import { loadConfig } from '../../src/core/config.js';
import { parsePrometheusText } from '../support/prometheus-text.js';
import { skipWithoutNatsServer, startNatsServer, type NatsServer } from '../support/nats-server.js';

async function gauges(app: HyphaeApp): Promise<Record<string, number>> {
  const families = parsePrometheusText(await app.metrics.render());
  const out: Record<string, number> = {};
  for (const name of ['hyphae_ready', 'hyphae_nats_connected', 'hyphae_db_pool_max_connections', 'hyphae_db_acquire_timeouts_total']) {
    for (const s of families.get(name)?.samples ?? []) out[`${name}${Object.values(s.labels).map((v) => `:${v}`).join('')}`] = s.value;
  }
  return out;
}

describe.skipIf(skipWithoutNatsServer())('openHyphaeApp with NATS: the dependency gauges', () => {
  let dataDir: string;
  let nats: NatsServer;
  let app: HyphaeApp;

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'hyphae-app-metrics-'));
    nats = await startNatsServer();
    app = await openHyphaeApp(loadConfig({ HYPHAE_DATA_DIR: dataDir, HYPHAE_EMBEDDER: 'hash', HYPHAE_NATS_URL: nats.url }), {
      command: 'app metrics test',
      onBackgroundError: () => undefined,
    });
  });
  afterAll(async () => {
    await app?.close();
    await nats?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('reports the database and NATS ready and connected, and the pool limits', async () => {
    expect(await gauges(app)).toEqual({
      'hyphae_ready:database': 1,
      'hyphae_ready:nats': 1,
      'hyphae_nats_connected:bus': 1,
      'hyphae_db_pool_max_connections': 1,
      'hyphae_db_acquire_timeouts_total': 0,
    });
  });

  it('reports NATS away while it is, and back once it is', async () => {
    await nats.stop();
    await expect.poll(async () => (await gauges(app))['hyphae_nats_connected:bus'], { timeout: 30_000 }).toBe(0);
    expect((await gauges(app))['hyphae_ready:nats']).toBe(0);
    expect((await gauges(app))['hyphae_ready:database']).toBe(1);
    await nats.start();
    await expect.poll(async () => (await gauges(app))['hyphae_nats_connected:bus'], { timeout: 30_000 }).toBe(1);
    expect((await gauges(app))['hyphae_ready:nats']).toBe(1);
  });
});
