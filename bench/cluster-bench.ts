/**
 * `npm run bench cluster`: the local single-node Kubernetes (scripts/local-cluster.sh) under its
 * own name (`bench`, so a developer's cluster and CI's `ci` stay alone; do not run it beside an
 * e2e run: the machine's saved sysctls are shared). Measures
 *   - `up` from down (the node's processes start from nothing; the builds come from the cache
 *     under ~/.cache/hyphae when nothing changed — the row's note says what was built) against
 *     `up` on the running cluster (the idempotent re-run) as the baseline;
 *   - `helm install` → HyphaeMesh Ready with every pod Ready (bench/cluster-probe.ts, run inside
 *     the cluster's network namespace);
 *   - store → live push to a beacon owner on the other API pod, p50/p99, against a writer on the
 *     owner's own pod;
 *   - the node components' peak resident memory while the mesh runs, against the mesh's pods.
 * Always tears the cluster down. Needs root and the local cluster's prerequisites; fails loudly
 * when they are missing.
 */
import { spawn } from 'node:child_process';
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchRow, BenchSection } from './harness/section.js';
import { percentile } from './harness/section.js';
import type { ClusterProbeResult } from './cluster-probe.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const NAME = 'bench';
const STATE = `/var/lib/hyphae-cluster/${NAME}`;
const MIB = 1024 * 1024;

interface Ran {
  readonly ms: number;
  readonly stdout: string;
  readonly stderr: string;
}

function cluster(args: readonly string[]): Promise<Ran> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['scripts/local-cluster.sh', ...args], {
      cwd: ROOT,
      env: { ...process.env, HYPHAE_CLUSTER_NAME: NAME },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve({ ms: performance.now() - started, stdout, stderr });
      else reject(new Error(`local-cluster.sh ${args.join(' ')} exited ${code}:\n${stderr.slice(-4000)}`));
    });
  });
}

/** What an `up` had to build rather than take from the cache, read from its log lines. */
function builtDuring(stderr: string): string {
  const built = stderr
    .split('\n')
    .filter((l) => /\b(building|buildah bud|debootstrap|assembling|compiling)\b/.test(l))
    .map((l) => l.replace(/^[a-z0-9-]+: \d\d:\d\d:\d\d /, '').trim());
  return built.length === 0 ? 'every build from the cache' : `built: ${built.slice(0, 4).join('; ')}${built.length > 4 ? '; …' : ''}`;
}

async function rssBytes(pid: string): Promise<number> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = /VmRSS:\s+(\d+) kB/.exec(status)?.[1];
    return kib === undefined ? 0 : Number(kib) * 1024;
  } catch {
    return 0;
  }
}

/** Resident memory of each node component (by its pid file) and of all pods (kubelet's cgroup root). */
async function memorySample(): Promise<{ components: Map<string, number>; pods: number }> {
  const components = new Map<string, number>();
  for (const f of await readdir(join(STATE, 'pids')).catch(() => [] as string[])) {
    if (!f.endsWith('.pid')) continue;
    const pid = (await readFile(join(STATE, 'pids', f), 'utf8')).trim();
    components.set(f.slice(0, -4), await rssBytes(pid));
  }
  // cgroup v1 memory controller; the page cache counts in usage, so take rss from memory.stat.
  const stat = await readFile(`/sys/fs/cgroup/memory/hyphae-${NAME}/memory.stat`, 'utf8').catch(() => '');
  const pods = Number(/^total_rss (\d+)$/m.exec(stat)?.[1] ?? 0);
  return { components, pods };
}

export async function runClusterBench(): Promise<BenchSection> {
  if (process.getuid?.() !== 0) throw new Error('the cluster bench needs root (scripts/local-cluster.sh)');
  await cluster(['down']);
  try {
    const cold = await cluster(['up']);
    const warm = await cluster(['up']);

    const peak = new Map<string, number>();
    let peakPods = 0;
    const sampler = setInterval(() => {
      void memorySample().then(({ components, pods }) => {
        for (const [k, v] of components) peak.set(k, Math.max(peak.get(k) ?? 0, v));
        peakPods = Math.max(peakPods, pods);
      });
    }, 2000);
    let probe: Ran;
    try {
      probe = await cluster(['exec', '--', 'node', 'node_modules/tsx/dist/cli.mjs', 'bench/cluster-probe.ts']);
    } finally {
      clearInterval(sampler);
    }
    const lastLine = probe.stdout.trim().split('\n').at(-1) ?? '';
    const result = JSON.parse(lastLine) as ClusterProbeResult;

    const rows: BenchRow[] = [
      { metric: 'up from down', value: cold.ms / 1000, unit: 's', baseline: warm.ms / 1000, ratio: cold.ms / warm.ms, note: `baseline: up on the running cluster; ${builtDuring(cold.stderr)}` },
      { metric: 'up on the running cluster', value: warm.ms / 1000, unit: 's' },
      { metric: 'helm install → mesh Ready', value: result.installToReadyMs / 1000, unit: 's', note: '2 API pods, 1 worker, PostgreSQL, NATS; every pod Ready' },
    ];
    for (const p of [50, 99]) {
      const cross = percentile(result.crossPodPushMs, p);
      const same = percentile(result.samePodPushMs, p);
      rows.push({
        metric: `store → live push across API pods p${p}`,
        value: cross,
        unit: 'ms',
        baseline: same,
        ratio: cross / same,
        note: `baseline: writer on the owner's pod; ${result.crossPodPushMs.length} stores each`,
      });
    }
    const total = [...peak.values()].reduce((a, b) => a + b, 0);
    rows.push({
      metric: 'node components peak RSS (sum)',
      value: total / MIB,
      unit: 'MiB',
      ...(peakPods > 0 ? { baseline: peakPods / MIB, ratio: total / peakPods } : {}),
      note: 'baseline: the mesh pods’ RSS (cgroup), sampled every 2 s',
    });
    for (const [k, v] of [...peak.entries()].sort((a, b) => b[1] - a[1])) {
      rows.push({ metric: `  ${k} peak RSS`, value: v / MIB, unit: 'MiB' });
    }
    return { name: 'cluster', rows };
  } finally {
    await cluster(['down']).catch((err: unknown) => console.error(`cluster bench: down failed: ${String(err)}`));
  }
}
