/**
 * `npm run bench scale` (only when named: a million cells take a while): Hyphae sized for a
 * platform team, on native PostgreSQL 18 + pgvector, each figure against a baseline of the same run.
 * - cells (bench/scale-cells.ts): one tenant at BENCH_SCALE_CELLS (default 10000,1000000; the first
 *   is the baseline) — recall p50/p99 against the bare kNN SQL, recall@10 against exact search,
 *   store p50/p99, PostgreSQL size per million cells;
 * - beacons: matching cost per store at BENCH_SCALE_BEACONS (default 10,100000);
 * - live (bench/scale-live.ts): BENCH_SCALE_STREAMS live streams (default 10000) on one API process
 *   — memory per stream against the idle process, push latency against one stream — and
 *   BENCH_SCALE_AGENTS agents (default 1000) storing at once across two API processes against one client.
 * BENCH_SCALE_PARTS (default cells,beacons,live) runs some of them.
 */
import { cpus, loadavg } from 'node:os';
import { openPgDb } from '../src/store/pg-driver.js';
import { startRealPostgres } from '../test/support/real-postgres.js';
import type { BenchRow, BenchSection } from './harness/section.js';
import { beaconCosts, sizes } from './pg-bench.js';
import { createDatabase } from './harness/postgres.js';
import { scaleCellRows } from './scale-cells.js';
import { scaleLiveRows } from './scale-live.js';
import { beaconRows } from './beacon-cost.js';

export async function runScaleBench(): Promise<BenchSection> {
  const cells = sizes('BENCH_SCALE_CELLS', '10000,1000000', 1000);
  const beacons = sizes('BENCH_SCALE_BEACONS', '10,100000', 10);
  const [streams] = sizes('BENCH_SCALE_STREAMS', '10000', 2);
  const [agents] = sizes('BENCH_SCALE_AGENTS', '1000', 2);
  const parts = (process.env.BENCH_SCALE_PARTS ?? 'cells,beacons,live').split(',');
  const server = await startRealPostgres(undefined, { settings: { shared_buffers: '1GB', maintenance_work_mem: '1GB', max_connections: '200' } });
  const rows: BenchRow[] = [];
  const started = performance.now();
  try {
    if (parts.includes('cells')) rows.push(...(await scaleCellRows(server, cells)));
    if (parts.includes('beacons')) {
      rows.push(...beaconRows(await beaconCosts(beacons, async (count) => openPgDb({ url: await createDatabase(server, `scale_beacons_${count}`), statementTimeoutMs: 0 })), 'native: '));
    }
    if (parts.includes('live')) rows.push(...(await scaleLiveRows(server, streams ?? 10_000, agents ?? 1_000)));
  } finally {
    await server.close();
  }
  const [load1] = loadavg();
  rows.unshift({ metric: 'load average (1 min) at the end', value: Number((load1 ?? 0).toPrecision(3)), unit: '', note: `${cpus().length} CPUs; the whole section took ${Math.round((performance.now() - started) / 60_000)} min` });
  return { name: 'scale (native PostgreSQL 18 + pgvector 0.8)', rows };
}
