/**
 * `npm run bench -- --against <git-ref> [--rounds n] section…`: before = <git-ref> in a temporary
 * worktree, after = this tree. Each round runs each section once in each tree, each run its own
 * process (`bench/run.ts <section>` of that tree, so each version runs its own bench code), the
 * order flipping each round; then per metric name the medians, after ÷ before, and a score that is
 * above 1 where after is better. Written to bench/results/against-<commit>.json.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { rotation } from './alternate.js';
import { checkOutBaseline } from './against-tree.js';
import { compareRuns, printComparison, WORSE_BELOW, type MetricComparison } from './against-compare.js';
import { REPO_ROOT } from './processes.js';
import type { BenchRow } from './section.js';

interface Side {
  readonly label: 'before' | 'after';
  readonly root: string;
}

interface RunResult {
  readonly rows?: readonly BenchRow[];
  readonly seconds: number;
  readonly failure?: string;
}

/** One process: `bench/run.ts <section>` in `side`'s tree; its rows from the results file it wrote. */
async function runOnce(side: Side, section: string): Promise<RunResult> {
  const started = Date.now();
  const output: string[] = [];
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'bench/run.ts', section], { cwd: side.root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.push(chunk));
    child.once('error', reject);
    child.once('exit', (exitCode) => resolve(exitCode));
  });
  const seconds = (Date.now() - started) / 1000;
  if (code !== 0) return { seconds, failure: `exit ${String(code)}: ${output.join('').trim().slice(-1500)}` };
  const written = JSON.parse(await readFile(join(side.root, 'bench', 'results', `${section}.json`), 'utf8')) as { rows: BenchRow[]; measured_at: string };
  if (Date.parse(written.measured_at) < started) return { seconds, failure: `bench/results/${section}.json was not rewritten by this run` };
  return { seconds, rows: written.rows };
}

export async function runAgainst(ref: string, sections: readonly string[], rounds: number): Promise<void> {
  const tree = checkOutBaseline(ref);
  const before: Side = { label: 'before', root: tree.root };
  const after: Side = { label: 'after', root: REPO_ROOT };
  console.log(`before: ${ref} (${tree.commit.slice(0, 12)}) in ${tree.root}\nafter:  ${REPO_ROOT}\n${rounds} round(s) per section, each side in its own process, the order flipping each round`);
  const report: Record<string, MetricComparison[]> = {};
  let failed = 0;
  let worse = 0;
  try {
    for (const section of sections) {
      const runs: Record<Side['label'], (readonly BenchRow[])[]> = { before: [], after: [] };
      for (let round = 0; round < rounds; round += 1) {
        for (const side of rotation([before, after], round)) {
          const result = await runOnce(side, section);
          console.log(`${section} round ${round + 1} ${side.label}: ${result.failure === undefined ? 'done' : 'FAILED'} in ${Math.round(result.seconds)} s`);
          if (result.failure !== undefined) {
            failed += 1;
            console.error(`${section} (${side.label}) failed: ${result.failure}`);
          } else runs[side.label].push(result.rows ?? []);
        }
      }
      const comparisons = compareRuns(runs.before, runs.after);
      report[section] = comparisons;
      worse += comparisons.filter((c) => c.score !== undefined && c.score < WORSE_BELOW).length;
      printComparison(`${section}: after ÷ before (${tree.commit.slice(0, 12)})`, comparisons);
    }
  } finally {
    tree.remove();
  }
  const resultsDir = join(REPO_ROOT, 'bench', 'results');
  await mkdir(resultsDir, { recursive: true });
  await writeFile(join(resultsDir, `against-${tree.commit.slice(0, 12)}.json`), JSON.stringify({ ref, commit: tree.commit, rounds, measured_at: new Date().toISOString(), sections: report }, null, 2));
  console.log(`\nscore = after ÷ before turned so that above 1 is better (↑ rates, ↓ times); ${worse} metric(s) scored below ${WORSE_BELOW}`);
  if (failed > 0) process.exitCode = 1;
}
