/**
 * Issue 13's abuse, measured: the victim tenant's requests (store, recall, list, pull, /healthz)
 * unloaded, then while one abuser key sits at every cap with 50 open streams and keeps pushing
 * (test/support/abuse-scenario.ts, on what `hyphae serve` runs). The figure is the victim's
 * latency under abuse ÷ unloaded, both measured in this run; test/http/abuse.test.ts asserts the
 * caps and the absence of errors.
 */
import { fillCaps, placeVictimBeacon, startAbuseLoad, startAbuseServer, victimRound, type Outcome } from '../test/support/abuse-scenario.js';
import { percentile } from './bench-section.js';
import type { BenchRow, BenchSection } from './bench-section.js';

const WARMUP_ROUNDS = 3;
const ROUNDS = Number(process.env.HYPHAE_BENCH_ABUSE_ROUNDS ?? 20);

async function rounds(run: (round: number) => Promise<Outcome[]>, first: number, count: number): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (let round = first; round < first + count; round++) outcomes.push(...(await run(round)));
  const failed = outcomes.filter((o) => o.status >= 300);
  if (failed.length > 0) throw new Error(`the victim got errors: ${failed.map((o) => `${o.label} ${o.status}`).join(', ')}`);
  return outcomes;
}

function latencyRows(label: string, unloaded: readonly Outcome[], abused: readonly Outcome[]): BenchRow[] {
  const ms = (outcomes: readonly Outcome[], p: number): number => percentile(outcomes.filter((o) => label === 'all' || o.label === label).map((o) => o.ms), p);
  return [50, 95].map((p) => {
    const value = ms(abused, p);
    const baseline = ms(unloaded, p);
    return { metric: `victim ${label} p${p} under abuse`, value, unit: 'ms', baseline, ratio: value / baseline, note: 'baseline: same requests unloaded' };
  });
}

export async function runAbuseBench(): Promise<BenchSection> {
  const server = await startAbuseServer();
  try {
    if ((await placeVictimBeacon(server)).status !== 201) throw new Error('the victim could not place its beacon');
    const victim = (round: number): Promise<Outcome[]> => victimRound(server, round);
    await rounds(victim, 0, WARMUP_ROUNDS);
    const unloaded = await rounds(victim, WARMUP_ROUNDS, ROUNDS);
    const filled = await fillCaps(server);
    const load = startAbuseLoad(server);
    let abused: Outcome[];
    try {
      abused = await rounds(victim, WARMUP_ROUNDS + ROUNDS, ROUNDS);
    } finally {
      await load.stop();
    }
    const refused = load.outcomes.filter((o) => o.status === 409 || o.status === 429).length;
    return {
      name: 'abuse (one key at every cap, 50 streams)',
      rows: [
        ...latencyRows('all', unloaded, abused),
        ...['store', 'recall', 'healthz'].flatMap((label) => latencyRows(label, unloaded, abused).slice(0, 1)),
        { metric: 'abuser streams open', value: filled.accepted.streams, unit: 'streams' },
        { metric: 'abuse requests during the victim rounds', value: load.outcomes.length, unit: 'requests', note: `${refused} refused at a cap (409/429)` },
      ],
    };
  } finally {
    await server.close();
  }
}
