/**
 * Erasure under load (issue 48), `npm run bench erasure`: one agent's cells erased while another
 * agent stores back to back (docs/forgetting.md). The erased agent's cells are bulk-loaded by SQL
 * (bench/harness/bulk-load.ts) and a diff about each sits in FANOUT of the recipients' inboxes,
 * written through the store layer as gossip writes them (bench/erasure-seed.ts): gossiping 10k
 * stores to 100 beacons through the facade would take most of the run. Each recipient also holds a
 * beacon placed through the facade, so the writer's own stores gossip into the same inboxes.
 * Figures per database: the erasure's wall time and cells/s; the writer's store p99 while it runs
 * as a ratio to its p99 without it (the same writer just before and just after; target ≤ 2×).
 * BENCH_SCALE: standard (10,000 cells, 100 inboxes, each cell's diff in 10 of them) or small
 * (1,000, 20, 5). BENCH_ERASURE_DB: pglite,native by default (native when PostgreSQL with
 * pgvector is installed, as the tests find it). BENCH_ERASURE_BATCH_MS: the facade's erasureBatchMs.
 */
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { createMemoryFacade } from '../src/service/index.js';
import type { Db } from '../src/store/db.js';
import { migrate } from '../src/store/migrator.js';
import { openPgDb } from '../src/store/pg-driver.js';
import { openPgliteDb } from '../src/store/pglite-driver.js';
import { findPostgresRoot } from '../test/support/real-postgres.js';
import { syntheticCorpus } from './corpus.js';
import { seedErasedAgent } from './erasure-seed.js';
import { BULK_KEY, BULK_TENANT } from './harness/bulk-load.js';
import { QUIET_HITS } from './harness/engine.js';
import { round3, timed } from './harness/measure.js';
import { createDatabase, startBenchPostgres } from './harness/postgres.js';
import { ratioRow } from './harness/rows.js';
import { percentile, type BenchRow, type BenchSection } from './harness/section.js';

interface ErasureScale {
  readonly name: string;
  readonly cells: number;
  readonly inboxes: number;
  readonly fanout: number;
  /** Stores timed before the erasure and again after it, for the baseline. */
  readonly baselineStores: number;
}

const SCALES: Readonly<Record<string, ErasureScale>> = {
  standard: { name: 'standard', cells: 10_000, inboxes: 100, fanout: 10, baselineStores: 300 },
  small: { name: 'small', cells: 1_000, inboxes: 20, fanout: 5, baselineStores: 100 },
};

const WARMUP = 20;
const WRITER_SEED = 11;

/** The erasure of one agent's cells on `db` (migrated here), with another agent storing throughout. */
async function erasureRows(db: Db, label: string, scale: ErasureScale): Promise<BenchRow[]> {
  const embedder = new HashEmbedder();
  await migrate(db, { modelId: embedder.modelId, dimension: embedder.dimension });
  // The vacuum after a large erasure runs in the background; kept out so the after-baseline is only stores.
  const batchMs = process.env.BENCH_ERASURE_BATCH_MS === undefined ? {} : { erasureBatchMs: Number(process.env.BENCH_ERASURE_BATCH_MS) };
  const facade = createMemoryFacade({ db, embedder, config: { ...QUIET_HITS, erasureVacuumCells: Number.MAX_SAFE_INTEGER, ...batchMs } });
  try {
    const keyOf = async (agent: string, extra: Record<string, unknown> = BULK_KEY): Promise<string> =>
      (await facade.keyAdmin.createKey({ tenant: BULK_TENANT, agent, ...extra })).key;
    const writer = await facade.authenticate(await keyOf('writer'));
    const ops = await facade.authenticate(await keyOf('ops', { roles: ['admin'] }));
    const beacons = syntheticCorpus(scale.inboxes, WRITER_SEED + 1);
    const recipients: { agent: string; beaconId: string }[] = [];
    for (const [i, text] of beacons.entries()) {
      const agent = `recipient-${i}`;
      recipients.push({ agent, beaconId: (await facade.placeBeacon(await facade.authenticate(await keyOf(agent)), { text, threshold: 0.3, include_own: false })).beacon_id });
    }
    const seeded = await seedErasedAgent(db, embedder, { agent: 'victim', cells: scale.cells, fanout: scale.fanout, recipients });

    const texts = syntheticCorpus(WARMUP + 2 * scale.baselineStores + 20_000, WRITER_SEED);
    let next = 0;
    const store = async (): Promise<number> => (await timed(() => facade.store(writer, { content: texts[next++ % texts.length] as string, cell_type: 'Fact', salience: 0.5 }))).ms;
    for (let i = 0; i < WARMUP; i++) await store();
    const without: number[] = [];
    for (let i = 0; i < scale.baselineStores; i++) without.push(await store());

    let done = false;
    const erasure = timed(() => facade.eraseAgentMemories(ops, { agent: 'victim' })).finally(() => (done = true));
    const during: number[] = [];
    while (!done) during.push(await store());
    const { value: receipt, ms } = await erasure;
    for (let i = 0; i < scale.baselineStores; i++) without.push(await store());

    if (receipt.counts.cells !== scale.cells || receipt.counts.diff_previews !== seeded.diffs) {
      throw new Error(`the receipt does not count what was seeded: ${JSON.stringify(receipt.counts)}`);
    }
    const what = `${scale.cells} cells, ${seeded.diffs} diffs in ${scale.inboxes} inboxes`;
    return [
      { metric: `${label}: erase one agent's ${what}, another agent storing back to back`, value: Math.round(ms), unit: 'ms', note: `${during.length} stores meanwhile` },
      { metric: `${label}: erasure rate under that load`, value: round3((scale.cells / ms) * 1000), unit: 'cells/s' },
      ratioRow(`${label}: store p99 while the erasure runs vs without it`, 'ms', percentile(during, 99), percentile(without, 99), {
        target: '≤ 2×',
        note: `p50 ${percentile(during, 50).toFixed(1)} vs ${percentile(without, 50).toFixed(1)} ms; ${during.length} stores during, ${without.length} without (before and after)`,
      }),
    ];
  } finally {
    await facade.close();
  }
}

export async function runErasureBench(): Promise<BenchSection> {
  const scale = SCALES[process.env.BENCH_SCALE ?? 'standard'] ?? (SCALES.standard as ErasureScale);
  const kinds = (process.env.BENCH_ERASURE_DB ?? (findPostgresRoot() === undefined ? 'pglite' : 'pglite,native')).split(',');
  const rows: BenchRow[] = [];
  for (const kind of kinds) {
    if (kind === 'pglite') {
      const db = await openPgliteDb();
      rows.push(...(await erasureRows(db, 'embedded PGlite', scale).finally(() => db.close())));
    } else if (kind === 'native') {
      const server = await startBenchPostgres();
      try {
        const db = await openPgDb({ url: await createDatabase(server, 'bench_erasure') });
        rows.push(...(await erasureRows(db, 'native PostgreSQL 18', scale).finally(() => db.close())));
      } finally {
        await server.close();
      }
    } else {
      throw new Error('BENCH_ERASURE_DB lists pglite and/or native');
    }
  }
  return { name: `erasure (scale ${scale.name})`, rows };
}
