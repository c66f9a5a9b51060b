/** Sequential operations on several sides (e.g. the facade and each surface), in rounds of a few ops per side, the side order rotating: latencies and process CPU per side. */
import { cpus, loadavg } from 'node:os';
import { alternate } from './alternate.js';
import { elapsedMs, round3 } from './measure.js';
import type { BenchRow } from './section.js';

export interface OpRoundsOptions {
  /** Ops of every side, interleaved one by one, before the first round. */
  readonly warmupOps: number;
  readonly rounds: number;
  readonly opsPerRound: number;
  /** Runs, untimed, after the warm-up and after each side's turn (e.g. flushing recall hits). */
  readonly between?: () => Promise<void>;
}

export interface SideOps {
  /** Milliseconds, one per op. */
  readonly latencies: number[];
  /** This process's CPU milliseconds over the side's turns (client and server share the process). */
  cpuMs: number;
}

/** Each op gets a number no other op of any side got. */
export async function opRounds<K extends string>(ops: Readonly<Record<K, (n: number) => Promise<void>>>, options: OpRoundsOptions): Promise<Record<K, SideOps>> {
  const names = Object.keys(ops) as K[];
  let n = 0;
  for (let i = 0; i < options.warmupOps; i += 1) for (const name of names) await ops[name]((n += 1));
  await options.between?.();
  const sides = Object.fromEntries(names.map((name) => [name, { latencies: [] as number[], cpuMs: 0 }])) as Record<K, SideOps>;
  const turns = Object.fromEntries(
    names.map((name) => [
      name,
      async (): Promise<void> => {
        const cpuStart = process.cpuUsage();
        for (let i = 0; i < options.opsPerRound; i += 1) sides[name].latencies.push(await elapsedMs(() => ops[name]((n += 1))));
        const cpu = process.cpuUsage(cpuStart);
        sides[name].cpuMs += (cpu.user + cpu.system) / 1000;
      },
    ]),
  ) as Record<K, () => Promise<void>>;
  await alternate(turns, options.rounds, options.between === undefined ? {} : { between: options.between });
  return sides;
}

/** The machine's 1-minute load average as a row: wall-time ratios mean little above the CPU count. */
export function loadAverageRow(): BenchRow {
  const [load1] = loadavg();
  return { metric: 'load average (1 min) at the end', value: round3(load1 ?? 0), unit: '', note: `${cpus().length} CPUs; wall-time ratios are only meaningful when this is below the CPU count` };
}
