/**
 * `npm run bench [section…]`: runs each benchmark section in turn, writes
 * bench/results/<section>.json and prints one table. Every figure that matters carries its
 * ratio to a baseline measured in the same run, so results compare across machines.
 * `npm run bench -- --against <git-ref> [--rounds n] section…`: the same sections of <git-ref> and
 * of this tree, alternately in separate processes, and each metric after ÷ before (bench/harness/against.ts).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { runAgainst } from './harness/against.js';
import type { BenchSection } from './harness/section.js';
import { printSection } from './harness/table.js';
import { selectSections, type SectionEntry } from './sections.js';

const resultsDir = join(dirname(fileURLToPath(import.meta.url)), 'results');

async function runSections(wanted: readonly SectionEntry[]): Promise<void> {
  await mkdir(resultsDir, { recursive: true });
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

interface Invocation {
  readonly names: string[];
  readonly against?: string;
  readonly rounds: number;
}

function parseArguments(args: readonly string[]): Invocation {
  const names: string[] = [];
  let against: string | undefined;
  let rounds = 2;
  for (let i = 0; i < args.length; i += 1) {
    const arg = args[i] as string;
    if (arg === '--against' || arg === '--rounds') {
      const value = args[(i += 1)];
      if (value === undefined) throw new Error(`${arg} needs a value`);
      if (arg === '--against') against = value;
      else rounds = Number(value);
      if (!Number.isInteger(rounds) || rounds < 1) throw new Error('--rounds must be a whole number from 1');
    } else if (arg.startsWith('--')) throw new Error(`unknown option ${arg}; known: --against <git-ref>, --rounds <n>`);
    else names.push(arg);
  }
  return { names, rounds, ...(against === undefined ? {} : { against }) };
}

try {
  const invocation = parseArguments(process.argv.slice(2));
  const wanted = selectSections(invocation.names);
  if (invocation.against === undefined) await runSections(wanted);
  else await runAgainst(invocation.against, wanted.map((s) => s.name), invocation.rounds);
} catch (error) {
  console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
}
