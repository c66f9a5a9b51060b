/**
 * Issue 13's abuse, measured: the victim tenant's requests (store, recall, list, pull, /healthz)
 * unloaded, then while one abuser key sits at every cap with 50 open streams and keeps pushing
 * (test/support/abuse-scenario.ts, on what `hyphae serve` runs). The figure is the victim's
 * latency under abuse ÷ unloaded, both measured in this run; test/http/abuse.test.ts asserts the
 * caps and the absence of errors.
 */
import { cpus, loadavg } from 'node:os';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { fillCaps, placeVictimBeacon, startAbuseLoad, startAbuseServer, victimRound, type Outcome } from '../test/support/abuse-scenario.js';
import { percentile } from './harness/section.js';
import type { BenchRow, BenchSection } from './harness/section.js';

const WARMUP_ROUNDS = 3;
const ROUNDS = Number(process.env.HYPHAE_BENCH_ABUSE_ROUNDS ?? 20);
const LAG_RESOLUTION_MS = 5;

interface Phase {
  readonly outcomes: Outcome[];
  /** How late this process's event loop ran a due timer, p50, in ms: what any callback waits for its turn. */
  readonly loopLagMs: number;
}

async function rounds(run: (round: number) => Promise<Outcome[]>, first: number, count: number): Promise<Phase> {
  const outcomes: Outcome[] = [];
  const delay = monitorEventLoopDelay({ resolution: LAG_RESOLUTION_MS });
  delay.enable();
  for (let round = first; round < first + count; round++) outcomes.push(...(await run(round)));
  delay.disable();
  // The histogram holds whole intervals between the timer's runs: one on time is the resolution.
  const phase = { outcomes, loopLagMs: Math.max(0, delay.percentile(50) / 1e6 - LAG_RESOLUTION_MS) };
  const failed = outcomes.filter((o) => o.status >= 300);
  if (failed.length > 0) throw new Error(`the victim got errors: ${failed.map((o) => `${o.label} ${o.status}`).join(', ')}`);
  return phase;
}

/** Why a request that does nothing (/healthz) slows the most in ratio: every request waits its turn on a busy loop. */
function loopRows(unloaded: Phase, abused: Phase): BenchRow[] {
  const added = (label: string): number => percentile(abused.outcomes.filter((o) => o.label === label).map((o) => o.ms), 50) - percentile(unloaded.outcomes.filter((o) => o.label === label).map((o) => o.ms), 50);
  return [
    {
      metric: 'event-loop lag p50 under abuse',
      value: abused.loopLagMs,
      unit: 'ms',
      baseline: unloaded.loopLagMs,
      note: `how late a timer due every ${LAG_RESOLUTION_MS} ms ran; baseline: unloaded; the server, the bench's clients and the embedded database's queries share this loop; load ${loadavg()[0]?.toFixed(1)} on ${cpus().length} CPUs`,
    },
    ...['healthz', 'store', 'recall'].map((label) => ({ metric: `victim ${label} p50 added under abuse`, value: added(label), unit: 'ms', note: 'under abuse minus unloaded: the wait for the busy loop, which a request that does nothing pays as well' })),
  ];
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
    let abused: Phase;
    try {
      abused = await rounds(victim, WARMUP_ROUNDS + ROUNDS, ROUNDS);
    } finally {
      await load.stop();
    }
    const refused = load.outcomes.filter((o) => o.status === 409 || o.status === 429).length;
    return {
      name: 'abuse (one key at every cap, 50 streams)',
      rows: [
        ...latencyRows('all', unloaded.outcomes, abused.outcomes),
        ...['store', 'recall', 'healthz'].flatMap((label) => latencyRows(label, unloaded.outcomes, abused.outcomes).slice(0, 1)),
        ...loopRows(unloaded, abused),
        { metric: 'abuser streams open', value: filled.accepted.streams, unit: 'streams' },
        { metric: 'abuse requests during the victim rounds', value: load.outcomes.length, unit: 'requests', note: `${refused} refused at a cap (409/429)` },
      ],
    };
  } finally {
    await server.close();
  }
}
