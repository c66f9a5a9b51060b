/**
 * `npm run bench mem0`: Hyphae against mem0 (PyPI mem0ai 2.2.1, the most used open-source memory
 * layer), both embedding through one `hyphae worker --embedder minilm` on loopback, so what differs
 * is the memory layer alone. mem0 runs in a Python process of its own (`Memory` with its local
 * on-disk Qdrant and SQLite history, `add(…, infer=False)`: the text stored as given, no LLM, telemetry
 * off; its venv made once by scripts/mem0-venv.sh), Hyphae as the embedded server over REST
 * (`hyphae serve`) and over MCP stdio (`hyphae mcp`, the official SDK client).
 *
 * The same memories are stored in all three, one call at a time, in turns (the order rotating each
 * round, so a load that drifts on a shared machine falls on all alike); at each size the same
 * questions are asked (k 5). A rate is calls ÷ the time spent in that side's own calls; mem0's calls
 * are timed inside its process around the library call (no transport charged to it), Hyphae's at
 * the client (HTTP or JSON-RPC included). CPU per call is each side's own process (every thread,
 * /proc), the worker's excluded. A question is a memory with its ticket reference cut off; top-1 /
 * top-5 count the questions whose memory comes first / among the five.
 *
 * BENCH_MEM0_MEMORIES: the sizes, cumulative (default 1000,10000: 1000 stored and measured, then
 * 9000 more). BENCH_MEM0_QUESTIONS: questions per size (default 200).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { round, sequentialRate } from './harness/measure.js';
import { percentile, type BenchRow, type BenchSection } from './harness/section.js';
import { processCpuMs } from './harness/process-cpu.js';
import { syntheticCorpus } from './corpus.js';
import { mem0Python, startEmbeddingWorker, startHyphaeMcp, startHyphaeRest, startMem0, type MemoryPeer, type PeerCall } from './mem0-peers.js';

const K = 5;
const WARMUP_SEARCHES = 10;
/** The unique reference each corpus sentence ends with (bench/corpus.ts): a question leaves it out. */
const REFERENCE = / ?(\(ticket [A-Z]+-\d+\)|Tracked in [A-Z]+-\d+\.|See [A-Z]+-\d+ for the discussion\.|Raised by the [\w -]+ in [A-Z]+-\d+\.)$/;

export function questionOf(memory: string): string {
  return memory.replace(REFERENCE, '');
}

interface Phase {
  readonly calls: PeerCall[];
  cpuMs: number;
}

/** Round i calls every peer once, starting at a different one each round; each peer's CPU over the phase. */
async function inTurns(peers: readonly MemoryPeer[], from: number, to: number, call: (peer: MemoryPeer, i: number) => Promise<PeerCall>): Promise<Phase[]> {
  const phases = peers.map((peer): Phase => ({ calls: [], cpuMs: -processCpuMs(peer.pid) }));
  for (let i = from; i < to; i++) {
    for (let j = 0; j < peers.length; j++) {
      const k = (i + j) % peers.length;
      (phases[k] as Phase).calls.push(await call(peers[k] as MemoryPeer, i));
    }
  }
  peers.forEach((peer, k) => {
    (phases[k] as Phase).cpuMs += processCpuMs(peer.pid);
  });
  return phases;
}

const r3 = (x: number): number => round(x);
const rate = (phase: Phase): number => sequentialRate(phase.calls.map((c) => c.ms));
const latency = (phase: Phase, p: number): number => percentile(phase.calls.map((c) => c.ms), p);
const cpuPerCall = (phase: Phase): number => phase.cpuMs / phase.calls.length;

function comparisonRows(size: string, op: string, phase: Phase, baseline: Phase, peer: string, target: string): BenchRow[] {
  return [
    {
      metric: `${size}: ${peer} ${op} throughput vs mem0`,
      value: Math.round(rate(phase)),
      unit: 'calls/s',
      baseline: Math.round(rate(baseline)),
      ratio: r3(rate(phase) / rate(baseline)),
      target,
      note: `${phase.calls.length} calls each, one at a time, in turns`,
    },
    { metric: `${size}: ${peer} ${op} p50 vs mem0`, value: r3(latency(phase, 50)), unit: 'ms', baseline: r3(latency(baseline, 50)), ratio: r3(latency(phase, 50) / latency(baseline, 50)) },
    { metric: `${size}: ${peer} ${op} p99 vs mem0`, value: r3(latency(phase, 99)), unit: 'ms', baseline: r3(latency(baseline, 99)), ratio: r3(latency(phase, 99) / latency(baseline, 99)) },
    {
      metric: `${size}: ${peer} ${op} CPU per call vs mem0`,
      value: r3(cpuPerCall(phase)),
      unit: 'ms',
      baseline: r3(cpuPerCall(baseline)),
      ratio: r3(cpuPerCall(phase) / cpuPerCall(baseline)),
      ...(op === 'add' ? { target: '≤ 1×' } : {}),
      note: 'each side its own process, every thread; the embedding worker excluded',
    },
  ];
}

/** The fraction of questions whose memory is first, and among the first K. */
function accuracy(phase: Phase, expected: readonly string[]): { top1: number; top5: number } {
  let top1 = 0;
  let top5 = 0;
  phase.calls.forEach((call, i) => {
    const want = expected[i];
    if (call.found[0] === want) top1 += 1;
    if (want !== undefined && call.found.slice(0, K).includes(want)) top5 += 1;
  });
  return { top1: top1 / phase.calls.length, top5: top5 / phase.calls.length };
}

function sizes(): number[] {
  const values = (process.env.BENCH_MEM0_MEMORIES ?? '1000,10000').split(',').map(Number);
  if (values.some((n, i) => !Number.isInteger(n) || n < 10 || (i > 0 && n <= (values[i - 1] as number)))) {
    throw new Error('BENCH_MEM0_MEMORIES must be increasing integers ≥ 10, comma-separated');
  }
  return values;
}

export async function runMem0Bench(): Promise<BenchSection> {
  const steps = sizes();
  const questionCount = Number(process.env.BENCH_MEM0_QUESTIONS ?? 200);
  const python = await mem0Python();
  const memories = syntheticCorpus(steps[steps.length - 1] as number, 7);
  const dirs = await Promise.all([0, 1, 2].map(() => mkdtemp(join(tmpdir(), 'hyphae-mem0-bench-'))));
  const worker = await startEmbeddingWorker();
  const peers: MemoryPeer[] = [];
  const rows: BenchRow[] = [];
  try {
    peers.push(await startMem0(python, dirs[0] as string, worker));
    peers.push(await startHyphaeRest(dirs[1] as string, worker));
    peers.push(await startHyphaeMcp(dirs[2] as string, worker));
    // What each peer's search names memory i by.
    const keys: string[][] = peers.map(() => []);
    let stored = 0;
    for (const n of steps) {
      const size = n >= 1000 ? `${n / 1000}k` : String(n);
      const adds = await inTurns(peers, stored, n, async (peer, i) => {
        const call = await peer.store(memories[i] as string);
        (keys[peers.indexOf(peer)] as string[])[i] = call.key;
        return call;
      });
      stored = n;
      const asked = Array.from({ length: Math.min(questionCount, n) }, (_, j) => Math.floor((j * n) / Math.min(questionCount, n)));
      const ask = (peer: MemoryPeer, j: number): Promise<PeerCall> => peer.search(questionOf(memories[asked[j] as number] as string), K);
      await inTurns(peers, 0, Math.min(WARMUP_SEARCHES, asked.length), ask);
      const searches = await inTurns(peers, 0, asked.length, ask);
      const [mem0Adds, mem0Searches] = [adds[0] as Phase, searches[0] as Phase];
      const expected = (p: number): string[] => asked.map((i) => (keys[p] as string[])[i] as string);
      const mem0Accuracy = accuracy(mem0Searches, expected(0));
      rows.push({
        metric: `${size}: mem0 add p50 / search p50`,
        value: r3(latency(mem0Adds, 50)),
        unit: 'ms',
        note: `search p50 ${r3(latency(mem0Searches, 50))} ms; ${Math.round(rate(mem0Adds))} adds/s, ${Math.round(rate(mem0Searches))} searches/s; adds ${stored - adds[0]!.calls.length + 1}–${stored}`,
      });
      for (let p = 1; p < peers.length; p++) {
        const name = (peers[p] as MemoryPeer).name;
        rows.push(...comparisonRows(size, 'add', adds[p] as Phase, mem0Adds, name, '≥ 1×'));
        rows.push(...comparisonRows(size, `search k=${K}`, searches[p] as Phase, mem0Searches, name, n >= 10_000 ? '≥ 2×' : '≥ 1×'));
        const found = accuracy(searches[p] as Phase, expected(p));
        rows.push({ metric: `${size}: ${name} top-1 vs mem0`, value: r3(found.top1), unit: 'fraction', baseline: r3(mem0Accuracy.top1), note: `${asked.length} questions (a memory without its ticket reference)` });
        rows.push({ metric: `${size}: ${name} top-5 vs mem0`, value: r3(found.top5), unit: 'fraction', baseline: r3(mem0Accuracy.top5) });
      }
    }
    const [load1] = loadavg();
    rows.unshift({ metric: 'load average (1 min) at the end', value: r3(load1 ?? 0), unit: '', note: `${cpus().length} CPUs; mem0ai 2.2.1, one hyphae worker (minilm) shared by all` });
    return { name: 'mem0', rows };
  } finally {
    await Promise.allSettled(peers.map((p) => p.close()));
    await worker.close();
    await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
  }
}
