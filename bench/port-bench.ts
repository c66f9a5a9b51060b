/**
 * `npm run bench port`: export and import rates on native PostgreSQL 18 + pgvector, each a ratio to
 * PostgreSQL's own tools on the same database in the same run — `hyphae export --with-vectors` to
 * `pg_dump -Fc -Z0` (uncompressed custom format), `hyphae import` (same embedder: the file's vectors,
 * no embedding; into an empty database it loads first and builds the HNSW indexes after, as the
 * CLI does) into an empty migrated database to `pg_restore` of that dump into an empty
 * database (its data, then its indexes, HNSW included). BENCH_PORT_CELLS cells (default 100000) of
 * the synthetic corpus with precomputed hash vectors (512-d), bulk-loaded and indexed as
 * bench/pg-bench.ts does. A missing PostgreSQL fails the section.
 */
import { spawnSync } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { dumpReaderFor, exportDumpLines, fileDumpSource, importDump } from '../src/service/index.js';
import { migrate } from '../src/store/migrator.js';
import { openPgDb } from '../src/store/pg-driver.js';
import { requirePostgresRoot } from '../test/support/real-postgres.js';
import { round } from './harness/measure.js';
import type { BenchRow, BenchSection } from './harness/section.js';
import { syntheticCorpus } from './corpus.js';
import { createDatabase, loadCellDatabase, startBenchPostgres } from './harness/postgres.js';

const CORPUS_SEED = 42;

/** Runs one of PostgreSQL's client tools; resolves with its wall time in ms. */
function timedTool(root: string, tool: string, args: readonly string[]): number {
  const started = performance.now();
  const result = spawnSync(join(root, 'bin', tool), args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const ms = performance.now() - started;
  if (result.status !== 0) throw new Error(`${tool} failed: ${result.stderr}`);
  return ms;
}

export async function runPortBench(): Promise<BenchSection> {
  const cells = Number(process.env.BENCH_PORT_CELLS ?? 100_000);
  const root = requirePostgresRoot();
  const embedder = new HashEmbedder();
  const identity = { modelId: embedder.modelId, dimension: embedder.dimension };
  const server = await startBenchPostgres();
  const dir = await mkdtemp(join(tmpdir(), 'hyphae-port-bench-'));
  try {
    const { url } = await loadCellDatabase(server, 'port_source', embedder, syntheticCorpus(cells, CORPUS_SEED));
    const source = await openPgDb({ url, max: 2, statementTimeoutMs: 0 });
    const exportFile = join(dir, 'export.jsonl');
    let exportMs: number;
    try {
      const out = createWriteStream(exportFile);
      const started = performance.now();
      for await (const chunk of exportDumpLines(source, { scope: { tenantId: null, project: null }, withVectors: true, identity, hyphaeVersion: 'bench', now: new Date() })) {
        if (!out.write(chunk)) await once(out, 'drain');
      }
      out.end();
      await once(out, 'close');
      exportMs = performance.now() - started;
    } finally {
      await source.close();
    }
    const dumpFile = join(dir, 'dump.pgc');
    const dumpMs = timedTool(root, 'pg_dump', ['-Fc', '-Z0', '-f', dumpFile, url]);

    const targetUrl = await createDatabase(server, 'port_target');
    const target = await openPgDb({ url: targetUrl, max: 2, statementTimeoutMs: 0 });
    let importMs: number;
    try {
      await migrate(target, identity);
      const started = performance.now();
      const summary = await importDump(target, dumpReaderFor('hyphae', fileDumpSource(exportFile)), { target: identity, embedder: async () => embedder, bulkLoadFrom: 1000 });
      importMs = performance.now() - started;
      if (summary.records.cell.added !== cells || !summary.vectors_from_file) throw new Error(`the import added ${summary.records.cell.added} of ${cells} cells`);
    } finally {
      await target.close();
    }
    const restoreUrl = await createDatabase(server, 'port_restore');
    const restoreMs = timedTool(root, 'pg_restore', ['-d', restoreUrl, '--no-owner', dumpFile]);

    const rate = (ms: number): number => round(cells / (ms / 1000));
    const rows: BenchRow[] = [
      { metric: `export ${cells} cells with vectors`, value: rate(exportMs), unit: 'cells/s', baseline: rate(dumpMs), ratio: round(dumpMs / exportMs), note: 'baseline: pg_dump -Fc -Z0 of the same database' },
      { metric: `import ${cells} cells (file vectors)`, value: rate(importMs), unit: 'cells/s', baseline: rate(restoreMs), ratio: round(restoreMs / importMs), note: 'baseline: pg_restore of that dump into an empty database' },
      { metric: 'export file size', value: round((await stat(exportFile)).size / 2 ** 20), unit: 'MiB', baseline: round((await stat(dumpFile)).size / 2 ** 20), ratio: round((await stat(exportFile)).size / (await stat(dumpFile)).size), note: 'baseline: the pg_dump file' },
    ];
    return { name: 'port', rows };
  } finally {
    await server.close();
    await rm(dir, { recursive: true, force: true });
  }
}
