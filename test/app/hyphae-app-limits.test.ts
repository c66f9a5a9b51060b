/**
 * The limits of issue 13 as `hyphae serve` and `hyphae mcp` wire them (src/app, the composition root):
 * HYPHAE_* settings (HYPHAE_DEDUP_SIMILARITY too) reach the facade, and inbox trimming is counted in hyphae_inbox_trimmed_total.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHyphaeApp, type HyphaeApp } from '../../src/app/index.js';
import { loadConfig } from '../../src/core/config.js';
import type { HyphaeError } from '../../src/core/errors.js';
import { parsePrometheusText } from '../support/prometheus-text.js';

let dataDir: string;
let runtime: HyphaeApp;
const errors: unknown[] = [];

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'hyphae-limits-'));
  const config = loadConfig({
    HYPHAE_DATA_DIR: dataDir,
    HYPHAE_EMBEDDER: 'hash',
    HYPHAE_MAX_INBOX_DIFFS: '2',
    HYPHAE_MAX_BEACONS_PER_AGENT: '1',
    HYPHAE_MAX_STREAMS_PER_KEY: '1',
    HYPHAE_MAX_CELLS_PER_TENANT: '5',
    HYPHAE_MAX_OPEN_SESSIONS_PER_AGENT: '1',
    // hash has no default near-duplicate similarity; this turns reinforcement on.
    HYPHAE_DEDUP_SIMILARITY: '0.99',
  });
  runtime = await openHyphaeApp(config, { command: 'test', onBackgroundError: (error) => errors.push(error) });
});
afterAll(async () => {
  await runtime?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('the composed process limits', () => {
  it('applies the beacon, stream, inbox, cell, session and near-duplicate settings and counts trimmed diffs', async () => {
    const mint = async (agent: string) => runtime.facade.authenticate((await runtime.keyAdmin.createKey({ tenant: 'lim', agent })).key);
    const author = await mint('author');
    const watcher = await mint('watcher');
    await runtime.facade.placeBeacon(watcher, { text: 'queue depth alarms', include_own: false, threshold: 0.2 });
    const refused = await runtime.facade.placeBeacon(watcher, { text: 'second', include_own: false }).catch((e: unknown) => e);
    expect((refused as HyphaeError).code).toBe('CONFLICT');

    const stream = await runtime.facade.subscribeDiffs(watcher, () => undefined);
    const second = await runtime.facade.subscribeDiffs(watcher, () => undefined).catch((e: unknown) => e);
    expect((second as HyphaeError).code).toBe('RATE_LIMITED');
    await stream.close();

    for (let i = 0; i < 5; i++) await runtime.facade.store(author, { content: `queue depth alarms fired ${i}`, cell_type: 'Risk', salience: 0.8 });
    const families = parsePrometheusText(await runtime.metrics.render());
    expect(families.get('hyphae_inbox_trimmed_total')?.samples[0]?.value).toBe(3);
    expect(families.get('hyphae_diffs_produced_total')?.samples[0]?.value).toBe(5);
    const overCells = await runtime.facade.store(author, { content: 'one cell too many', cell_type: 'Fact', salience: 0.5 }).catch((e: unknown) => e);
    expect((overCells as HyphaeError).details).toMatchObject({ quota: 'cells_per_tenant', limit: 5 });
    // A restatement adds no cell, so a full tenant can still reinforce what it holds.
    expect(runtime.facade.config.restatementSimilarity).toBe(0.99);
    const restated = await runtime.facade.store(author, { content: 'queue depth alarms fired 4', cell_type: 'Risk', salience: 0.8 });
    expect(restated).toMatchObject({ reinforced: true, corroborations: 1 });
    await runtime.facade.openSession(author, { project: 'first' });
    const overSessions = await runtime.facade.openSession(author, { project: 'second' }).catch((e: unknown) => e);
    expect((overSessions as HyphaeError).details).toMatchObject({ quota: 'open_sessions_per_agent', limit: 1 });
    expect(errors).toEqual([]);
  });
});
