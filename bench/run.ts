/**
 * `npm run bench [section…]`: runs each benchmark section in turn, writes
 * bench/results/<section>.json and prints one table. Every figure that matters carries its
 * ratio to a baseline measured in the same run, so results compare across machines.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchSection } from './bench-section.js';

interface SectionEntry {
  readonly name: string;
  readonly module: string;
  readonly exportName: string;
  readonly onlyWhenNamed?: boolean;
}

const SECTIONS: readonly SectionEntry[] = [
  { name: 'embed', module: './embed-bench.js', exportName: 'runEmbedBench' },
  { name: 'store', module: './store-bench.js', exportName: 'runStoreBench' },
  { name: 'pg', module: './pg-bench.js', exportName: 'runPgBench' },
  { name: 'rest', module: './rest-bench.js', exportName: 'runRestBench' },
  { name: 'mcp', module: './mcp-bench.js', exportName: 'runMcpBench' },
  { name: 'grpc', module: './grpc-bench.js', exportName: 'runGrpcBench' },
  { name: 'oauth', module: './oauth-bench.js', exportName: 'runOAuthBench' },
  { name: 'mesh', module: './mesh-bench.js', exportName: 'runMeshBench' },
  { name: 'channel', module: './channel-bench.js', exportName: 'runChannelBench' },
  { name: 'worker', module: './worker-bench.js', exportName: 'runWorkerBench' },
  { name: 'peer', module: './peer-bench.js', exportName: 'runPeerBench' },
  { name: 'mem0', module: './mem0-bench.js', exportName: 'runMem0Bench' },
  { name: 'abuse', module: './abuse-bench.js', exportName: 'runAbuseBench' },
  { name: 'dedup', module: './dedup-bench.js', exportName: 'runDedupBench' },
  { name: 'port', module: './port-bench.js', exportName: 'runPortBench' },
  { name: 'console', module: './console-bench.js', exportName: 'runConsoleBench' },
  { name: 'recall', module: './recall-bench.js', exportName: 'runRecallBench' },
  { name: 'operator', module: '../operator/bench/operator-bench.js', exportName: 'runOperatorBench' },
  // Only when named (`npm run bench scale`): a million cells, 10k live streams, 1k agents take a while.
  { name: 'scale', module: './scale-bench.js', exportName: 'runScaleBench', onlyWhenNamed: true },
  // Only when named (`npm run bench cluster`): it starts a Kubernetes node, as root, for minutes.
  { name: 'cluster', module: './cluster-bench.js', exportName: 'runClusterBench', onlyWhenNamed: true },
];

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results');

function format(value: number | undefined, digits = 3): string {
  if (value === undefined || Number.isNaN(value)) return '';
  if (Math.abs(value) >= 1000) return value.toFixed(0);
  return Number(value.toPrecision(digits)).toString();
}

function printSection(section: BenchSection): void {
  const header = ['metric', 'value', 'unit', 'baseline', 'ratio', 'target', 'note'];
  const rows = section.rows.map((row) => [
    row.metric,
    format(row.value),
    row.unit,
    format(row.baseline),
    row.ratio === undefined ? '' : `${format(row.ratio)}×`,
    row.target ?? '',
    row.note ?? '',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: readonly string[]): string => cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join('  ').trimEnd();
  console.log(`\n## ${section.name}`);
  console.log(line(header));
  console.log(line(widths.map((w) => '-'.repeat(w))));
  for (const r of rows) console.log(line(r));
}

async function main(selected: readonly string[]): Promise<void> {
  await mkdir(resultsDir, { recursive: true });
  const wanted = selected.length > 0 ? SECTIONS.filter((s) => selected.includes(s.name)) : SECTIONS.filter((s) => s.onlyWhenNamed !== true);
  let failed = 0;
  for (const entry of wanted) {
    const started = Date.now();
    try {
      const mod = (await import(entry.module)) as Record<string, unknown>;
      const run = mod[entry.exportName];
      if (typeof run !== 'function') throw new Error(`${entry.module} does not export ${entry.exportName}`);
      const section = (await (run as () => Promise<BenchSection>)()) satisfies BenchSection;
      printSection(section);
      await writeFile(
        join(resultsDir, `${entry.name}.json`),
        JSON.stringify({ ...section, measured_at: new Date().toISOString(), seconds: (Date.now() - started) / 1000 }, null, 2),
      );
    } catch (error) {
      failed += 1;
      console.error(`\n## ${entry.name}: failed: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  if (failed > 0) process.exitCode = 1;
}

await main(process.argv.slice(2));
