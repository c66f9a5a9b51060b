// PostgreSQL under Patroni on a real node (docs/operations.md): a mesh with three instances and
// backups; the primary deleted while writers store through the API Service, then every
// acknowledged store read back and the recovery time printed; a pgBackRest backup, and a fresh
// mesh restored from it to a point in time, its data found by recall. Runs inside the cluster's
// network namespace (`npm run test:e2e`).
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLUSTER_DEADLINE_MS, CLUSTER_POLL_MS, callTool, clusterEnv, fetchVia, kubectl, kubectlJson, meshReady, ok, podReady, run, type ClusterPod } from '../support/k8s/cluster.js';
import { waitFor } from '../support/wait-for.js';

const { env, skip } = clusterEnv();
const CHART = fileURLToPath(new URL('../../charts/hyphae', import.meta.url));
const NS = 'hyphae-ha';
const MESH = 'ha';
const RESTORED = 'ha-restored';
const WRITERS = 4;

interface PatroniMember {
  name: string;
  role: string;
  state: string;
}
interface Write {
  started: number;
  ended: number;
  key: string;
  nodeId?: string;
}

const pods = async (selector: string): Promise<ClusterPod[]> => (await kubectlJson<{ items: ClusterPod[] }>('-n', NS, 'get', 'pods', '-l', selector)).items;
const component = (mesh: string, c: string): string => `app.kubernetes.io/instance=${mesh},app.kubernetes.io/component=${c}`;
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));


/** The members as Patroni reports them (its REST API on any instance). */
async function patroniMembers(): Promise<PatroniMember[]> {
  const instances = (await pods(component(MESH, 'postgres'))).filter((p) => p.status.podIP !== undefined);
  for (const p of instances) {
    try {
      const res = await fetch(`http://${p.status.podIP}:8008/cluster`, { signal: AbortSignal.timeout(3000) });
      if (res.ok) return ((await res.json()) as { members: PatroniMember[] }).members;
    } catch {
      // that instance is going or not up yet: ask the next
    }
  }
  throw new Error('no Patroni REST API answered');
}

/** One leader streaming to a synchronous standby and one more replica, and the primary Service pointing at the leader alone. */
async function healthyCluster(): Promise<{ primary: ClusterPod } | undefined> {
  const instances = await pods(component(MESH, 'postgres'));
  if (instances.length !== 3 || !instances.every(podReady)) return undefined;
  const members = await patroniMembers();
  const roles = members.map((m) => `${m.role}/${m.state}`).sort();
  if (JSON.stringify(roles) !== JSON.stringify(['leader/running', 'replica/streaming', 'sync_standby/streaming'])) return undefined;
  const primaries = instances.filter((p) => p.metadata.labels?.role === 'primary');
  const leader = members.find((m) => m.role === 'leader')?.name;
  if (primaries.length !== 1 || primaries[0]?.metadata.name !== leader) return undefined;
  if (instances.filter((p) => p.metadata.labels?.role === 'replica').length !== 2) return undefined;
  const endpoints = await kubectlJson<{ subsets?: { addresses?: { ip: string }[] }[] }>('-n', NS, 'get', 'endpoints', `${MESH}-postgres`);
  const ips = (endpoints.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
  return JSON.stringify(ips) === JSON.stringify([primaries[0]?.status.podIP]) ? { primary: primaries[0] as ClusterPod } : undefined;
}

async function serviceIP(name: string): Promise<string> {
  return (await kubectl('-n', NS, 'get', 'service', name, '-o', 'jsonpath={.spec.clusterIP}')).trim();
}

async function getCell(f: typeof fetch, key: string, id: string): Promise<number> {
  const res = await f(`http://api:8787/v1/cells/${id}`, { headers: { 'x-hyphae-key': key } });
  await res.text();
  return res.status;
}

/** Runs a Job from the backup CronJob and returns its log once it completed. */
async function backupNow(name: string): Promise<string> {
  await kubectl('-n', NS, 'create', 'job', name, `--from=cronjob/${MESH}-postgres-backup`);
  await waitFor(`${name} complete`, async () => {
    const job = await kubectlJson<{ status?: { succeeded?: number; failed?: number } }>('-n', NS, 'get', 'job', name);
    if ((job.status?.failed ?? 0) > 0) throw new Error(`${name} failed: ${await kubectl('-n', NS, 'logs', `job/${name}`)}`);
    return (job.status?.succeeded ?? 0) > 0 ? true : undefined;
  }, 300_000, CLUSTER_POLL_MS);
  return kubectl('-n', NS, 'logs', `job/${name}`);
}

describe.skipIf(skip !== undefined)('PostgreSQL under Patroni on a real Kubernetes node', () => {
  const e = env as NonNullable<typeof env>;
  let api: typeof fetch;
  const keys: string[] = [];
  const acknowledged: Write[] = [];

  beforeAll(async () => {
    await run('helm', ['uninstall', MESH, '-n', NS, '--wait']);
    await run('kubectl', ['delete', 'namespace', NS, '--wait=true', '--ignore-not-found']);
    const [repository, tag] = e.hyphaeImage.split(/:(?=[^:]+$)/);
    // Small requests: the node also runs the restored mesh beside this one.
    const set = (k: string, v: string | number): string[] => ['--set', `${k}=${v}`];
    await ok('helm', [
      'install', MESH, CHART, '-n', NS, '--create-namespace', '--wait', '--timeout', '10m',
      ...set('image.repository', repository ?? ''), '--set-string', `image.tag=${tag ?? ''}`, ...set('image.pullPolicy', 'Never'),
      ...set('operator.replicas', 1),
      ...set('mesh.enabled', 'true'), ...set('mesh.name', MESH),
      ...set('mesh.autoscaling.enabled', 'false'), ...set('mesh.api.replicas', 2), ...set('mesh.workers.replicas', 1),
      ...set('mesh.api.resources.requests.cpu', '50m'), ...set('mesh.workers.resources.requests.cpu', '50m'),
      // The writers below outrun the default per-key rate.
      ...set('mesh.api.env[0].name', 'HYPHAE_RATE_LIMIT_PER_MINUTE'), '--set-string', 'mesh.api.env[0].value=100000',
      ...set('mesh.postgres.image', e.postgresImage), ...set('mesh.postgres.instances', 3), ...set('mesh.postgres.storage.size', '1Gi'),
      ...set('mesh.postgres.resources.requests.cpu', '50m'), ...set('mesh.postgres.resources.requests.memory', '128Mi'),
      ...set('mesh.postgres.backup.enabled', 'true'),
      // Run by hand below, never by the clock during the test.
      ...set('mesh.postgres.backup.schedule', '0 0 1 1 *'),
      // One node: every instance mounts the repository from it.
      ...set('mesh.postgres.backup.volume.accessMode', 'ReadWriteOnce'), ...set('mesh.postgres.backup.volume.size', '2Gi'),
      ...set('mesh.nats.image', e.natsImage), ...set('mesh.nats.replicas', 1),
    ]);
  }, 900_000);

  afterAll(async () => {
    await run('kubectl', ['-n', NS, 'delete', 'hyphaemesh', RESTORED, '--ignore-not-found', '--wait=true']);
    await run('helm', ['uninstall', MESH, '-n', NS, '--wait']);
  }, 300_000);

  it('runs three instances: a leader, a synchronous standby and a replica, the primary Service on the leader alone', async () => {
    await waitFor('mesh Ready', () => meshReady(NS, MESH), 600_000, CLUSTER_POLL_MS);
    const { primary } = await waitFor('Patroni cluster healthy', healthyCluster, 600_000, CLUSTER_POLL_MS);
    console.log(`postgres: ${primary.metadata.name} leads, ${(await patroniMembers()).map((m) => `${m.name} ${m.role}`).join(', ')}`);
    api = fetchVia(await serviceIP(`${MESH}-api`), `${MESH}-api`);
    const b64 = await kubectl('-n', NS, 'get', 'secret', `${MESH}-admin-key`, '-o', 'jsonpath={.data.admin-key}');
    const adminKey = Buffer.from(b64, 'base64').toString('utf8');
    for (let i = 0; i < WRITERS; i++) {
      const res = await api('http://api:8787/v1/admin/keys', {
        method: 'POST',
        headers: { 'x-hyphae-key': adminKey, 'content-type': 'application/json' },
        body: JSON.stringify({ tenant: 'default', agent: `ha-writer-${i}` }),
      });
      expect(res.status).toBe(201);
      keys.push(((await res.json()) as { key: string }).key);
    }
  }, 900_000);

  it('fails over when the primary is deleted under load: the API reconnects and no acknowledged store is lost', async () => {
    const { primary } = await waitFor('Patroni cluster healthy', healthyCluster, 300_000, CLUSTER_POLL_MS);
    const apiPods = (await pods(component(MESH, 'api'))).filter(podReady);
    const writes: Write[] = [];
    let stop = false;
    const writer = async (w: number): Promise<void> => {
      for (let i = 0; !stop; i++) {
        const write: Write = { started: Date.now(), ended: 0, key: keys[w] as string };
        try {
          const stored = await callTool(api, write.key, 'store', { content: `writer ${w} store ${i} across a failover`, cell_type: 'Fact' });
          write.nodeId = stored.node_id as string;
        } catch {
          // refused or cut off while the primary goes: not acknowledged, so not expected back
        }
        write.ended = Date.now();
        writes.push(write);
        await sleep(50);
      }
    };
    const load = Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
    await waitFor('stores acknowledged before the deletion', async () => (writes.filter((x) => x.nodeId).length >= 20 ? true : undefined), 120_000, CLUSTER_POLL_MS);

    const deleted = Date.now();
    const gone = kubectl('-n', NS, 'delete', 'pod', primary.metadata.name, '--wait=true').then(() => Date.now());
    const newPrimary = await waitFor('a new leader', async () => {
      const members = await patroniMembers();
      const leader = members.find((m) => m.role === 'leader' && m.state === 'running');
      return leader && leader.name !== primary.metadata.name ? leader.name : undefined;
    }, 300_000, CLUSTER_POLL_MS);
    const leaderSeen = Date.now();
    const podGone = await gone;
    await waitFor('a store acknowledged by the new primary', async () => (writes.some((x) => x.started >= podGone && x.nodeId !== undefined) ? true : undefined), 300_000, CLUSTER_POLL_MS);
    await sleep(3000);
    stop = true;
    await load;
    // A write sent once the old primary failed a write, or was gone, can only have been stored by the new one.
    const firstFailure = Math.min(...writes.filter((x) => x.started >= deleted && x.nodeId === undefined).map((x) => x.started));
    const cut = Math.min(firstFailure, podGone);
    const firstOnNew = Math.min(...writes.filter((x) => x.started >= cut && x.nodeId !== undefined).map((x) => x.ended));

    await waitFor('three instances again, the deleted one back as a replica', healthyCluster, 600_000, CLUSTER_POLL_MS);
    const after = writes.filter((x) => x.started >= deleted);
    const failed = after.filter((x) => x.nodeId === undefined).length;
    const recovery = (firstOnNew - deleted) / 1000;
    console.log(
      `postgres failover: ${primary.metadata.name} deleted, ${newPrimary} promoted; ${WRITERS} writers, ` +
        `${writes.filter((x) => x.nodeId).length} stores acknowledged, ${failed} refused after the deletion; ` +
        `first refusal +${Number.isFinite(firstFailure) ? ((firstFailure - deleted) / 1000).toFixed(1) : '-'} s, new leader seen +${((leaderSeen - deleted) / 1000).toFixed(1)} s, ` +
        `old pod gone +${((podGone - deleted) / 1000).toFixed(1)} s; ` +
        `recovery time (deletion to the first store acknowledged by the new primary): ${recovery.toFixed(1)} s`,
    );

    // The API pods reconnected by themselves: the same pods, never restarted.
    const apiAfter = (await pods(component(MESH, 'api'))).filter(podReady);
    expect(apiAfter.map((p) => p.metadata.uid).sort()).toEqual(apiPods.map((p) => p.metadata.uid).sort());
    for (const p of apiAfter) expect(p.status.containerStatuses?.every((c) => c.restartCount === 0), p.metadata.name).toBe(true);

    const stored = writes.filter((x) => x.nodeId !== undefined);
    const lost: string[] = [];
    for (const x of stored) if ((await getCell(api, x.key, x.nodeId as string)) !== 200) lost.push(x.nodeId as string);
    console.log(`postgres failover: ${stored.length} acknowledged stores read back, ${lost.length} lost`);
    expect(lost).toEqual([]);
    acknowledged.push(...stored);
  }, 1_200_000);

  it('backs up with pgBackRest and restores a fresh mesh to a point in time, its data found by recall', async () => {
    const key = keys[0] as string;
    const first = await backupNow('ha-backup-1');
    expect(first).toContain('hyphae-backup: exit 0');

    // After the backup: one store before the target time, replayed from the archived WAL, and one after it, not.
    const before = 'the restore drill replays the WAL up to its target time';
    const kept = (await callTool(api, key, 'store', { content: before, cell_type: 'Decision', salience: 0.8 })).node_id as string;
    // Its embedding lands in a second write: wait for it, so the target follows both.
    await waitFor('the store recallable', async () => {
      const r = await callTool(api, key, 'recall', { query: before, k: 1 });
      return (r.results as { node_id: string }[])[0]?.node_id === kept ? true : undefined;
    }, CLUSTER_DEADLINE_MS, CLUSTER_POLL_MS);
    await sleep(1500);
    const target = new Date().toISOString();
    await sleep(1500);
    const dropped = (await callTool(api, key, 'store', { content: 'stored after the restore target time', cell_type: 'Fact' })).node_id as string;
    // A second backup ends with the WAL through that last store archived.
    expect(await backupNow('ha-backup-2')).toContain('hyphae-backup: exit 0');

    const started = Date.now();
    const manifest = join(tmpdir(), `${RESTORED}-${process.pid}.json`);
    writeFileSync(
      manifest,
      JSON.stringify({
        apiVersion: 'hyphae.dev/v1alpha1',
        kind: 'HyphaeMesh',
        metadata: { name: RESTORED, namespace: NS },
        spec: {
          image: { repository: e.hyphaeImage.split(/:(?=[^:]+$)/)[0], tag: e.hyphaeImage.split(/:(?=[^:]+$)/)[1], pullPolicy: 'Never' },
          api: { replicas: 1, resources: { requests: { cpu: '50m' } } },
          workers: { replicas: 1, resources: { requests: { cpu: '50m' } } },
          nats: { image: e.natsImage, replicas: 1 },
          postgres: {
            image: e.postgresImage,
            instances: 1,
            storage: { size: '1Gi' },
            resources: { requests: { cpu: '50m', memory: '128Mi' } },
            restore: { stanza: MESH, claimName: `${MESH}-postgres-backup`, targetTime: target },
          },
        },
      }),
    );
    await kubectl('apply', '-f', manifest);
    await waitFor('restored mesh Ready', () => meshReady(NS, RESTORED), 900_000, CLUSTER_POLL_MS);
    console.log(`postgres restore: a fresh mesh restored to ${target} and Ready in ${((Date.now() - started) / 1000).toFixed(0)} s`);

    const restored = fetchVia(await serviceIP(`${RESTORED}-api`), `${RESTORED}-api`);
    // The keys came back with the data.
    const recalled = await waitFor('recall on the restored mesh', async () => callTool(restored, key, 'recall', { query: before, k: 1 }), 120_000, CLUSTER_POLL_MS);
    expect((recalled.results as { node_id: string }[])[0]?.node_id).toBe(kept);
    expect(await getCell(restored, key, kept)).toBe(200);
    expect(await getCell(restored, key, dropped), 'a store after the target time').toBe(404);
    let missing = 0;
    for (const x of acknowledged) if ((await getCell(restored, x.key, x.nodeId as string)) !== 200) missing++;
    console.log(`postgres restore: ${acknowledged.length - missing} of the ${acknowledged.length} stores of the failover test found, the store after the target absent`);
    expect(missing).toBe(0);
  }, 1_800_000);
});
