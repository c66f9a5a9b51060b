// Two operator instances against one API server: exactly one holds the Lease and reconciles;
// when it stops (SIGTERM path: release the Lease) the other takes over and keeps reconciling.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '../../operator/src/kube/kube-client.js';
import { isWrite } from '../../operator/src/kube/request-log.js';
import type { RequestRecord } from '../../operator/src/kube/request-log.js';
import type { KubeObject } from '../../operator/src/kube/kube-object.js';
import { DEPLOYMENT, HYPHAE_MESH, LEASE, collectionPath, objectPath } from '../../operator/src/kube/resource-types.js';
import type { OperatorHandle } from '../../operator/src/run-operator.js';
import { k8sSkipReason } from '../support/k8s/assets.js';
import { freePort, startControlPlane } from '../support/k8s/control-plane.js';
import type { ControlPlane } from '../support/k8s/control-plane.js';
import { clientFor, createNamespace, installCrd, tryGet } from '../support/k8s/kube-helpers.js';
import { waitFor } from '../support/wait-for.js';
import { startTestOperator } from '../support/k8s/operator-harness.js';

const skip = k8sSkipReason();

const election = { namespace: 'default', leaseName: 'hyphae-operator-test', leaseDurationMs: 4000, renewDeadlineMs: 3000, retryPeriodMs: 250 };

describe.skipIf(skip !== undefined)('leader election on a real kube-apiserver', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  const ops: OperatorHandle[] = [];

  beforeAll(async () => {
    cp = await startControlPlane();
    client = clientFor(cp);
    await installCrd(client);
  });
  afterAll(async () => {
    for (const op of ops) await op.stop();
    client?.close();
    await cp?.stop();
  });

  const holder = async (): Promise<string | undefined> =>
    (await client.get<{ spec: { holderIdentity?: string } }>(objectPath(LEASE, 'default', election.leaseName))).spec.holderIdentity;

  it('elects one leader; the follower takes over when the leader stops', async () => {
    ops.push(await startTestOperator(cp, { leaderElection: { ...election, identity: 'op-a' } }));
    ops.push(await startTestOperator(cp, { leaderElection: { ...election, identity: 'op-b' } }));
    const [a, b] = ops as [OperatorHandle, OperatorHandle];
    const leader = await waitFor('a leader', async () => a.isLeader() ? a : b.isLeader() ? b : undefined);
    const follower = leader === a ? b : a;
    // Wait until the leader has renewed twice and, after each renewal, the follower has decided on
    // the renewed Lease (its third read after the renewal proves the attempt of the second, which
    // saw it, is over): each was a chance to take over, and it must not have.
    const leasePath = objectPath(LEASE, 'default', election.leaseName);
    const leaseReads = (h: OperatorHandle, mark: number): number => h.client.log.since(mark).filter((r) => r.path === leasePath && r.method === 'GET').length;
    // Successful writes only: a write that lost a race (409) took nothing.
    const leaseWrites = (h: OperatorHandle, mark: number): RequestRecord[] => h.client.log.since(mark).filter((r) => r.path.includes('/leases') && isWrite(r) && r.status < 300);
    const followerLeaseMark = follower.client.log.mark();
    for (let renewal = 0; renewal < 2; renewal++) {
      const leaderMark = leader.client.log.mark();
      await waitFor('leader renews', async () => leaseWrites(leader, leaderMark).length > 0);
      const followerMark = follower.client.log.mark();
      await waitFor('follower reads the renewed Lease', async () => leaseReads(follower, followerMark) >= 3);
    }
    expect(leaseWrites(follower, followerLeaseMark)).toEqual([]);
    expect(leader.isLeader()).toBe(true);
    expect(follower.isLeader()).toBe(false);
    expect(await holder()).toBe(leader.identity);
    expect(follower.controller()).toBeUndefined();

    // Only the leader reconciles.
    const ns = await createNamespace(client, 'le');
    const followerMark = follower.client.log.mark();
    await client.request({
      method: 'POST',
      path: collectionPath(HYPHAE_MESH, ns),
      body: { apiVersion: 'hyphae.dev/v1alpha1', kind: 'HyphaeMesh', metadata: { name: 'one' }, spec: {} },
    });
    await waitFor('leader created objects', () => tryGet(client, DEPLOYMENT, ns, 'one-api'));
    const followerWrites = follower.client.log.since(followerMark).filter((r) => isWrite(r) && !r.path.includes('/leases/'));
    expect(followerWrites).toEqual([]);

    // Leader stops (the SIGTERM path): it releases the Lease and the follower takes over promptly.
    await leader.stop();
    // Released, not merely abandoned: the Lease is free before anyone else has taken it.
    expect(['', follower.identity]).toContain(await holder());
    await waitFor('follower took over', async () => follower.isLeader() && follower.controller()?.hasSynced(), 15_000);
    expect(await holder()).toBe(follower.identity);

    // The new leader reconciles: a deleted Deployment comes back.
    await client.request({ method: 'DELETE', path: objectPath(DEPLOYMENT, ns, 'one-api') });
    const recreated = await waitFor('recreated by new leader', async () => {
      const d = await tryGet(client, DEPLOYMENT, ns, 'one-api');
      return d as KubeObject | undefined;
    });
    expect(recreated.metadata.ownerReferences?.[0]?.name).toBe('one');
  });
});

describe.skipIf(skip !== undefined)('operator process (operator/src/main.ts)', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let follower: OperatorHandle | undefined;

  beforeAll(async () => {
    cp = await startControlPlane();
    client = clientFor(cp);
    await installCrd(client);
  });
  afterAll(async () => {
    await follower?.stop();
    client?.close();
    await cp?.stop();
  });

  const leaseName = 'hyphae-operator';
  const holder = async (): Promise<string | undefined> =>
    (await client.get<{ spec: { holderIdentity?: string } }>(objectPath(LEASE, 'default', leaseName))).spec.holderIdentity;

  const spawnOperator = async (): Promise<{ child: ChildProcess; exit: Promise<number | null>; probe: string }> => {
    const port = await freePort();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'operator/src/main.ts', '--kubeconfig', cp.kubeconfigPath, '--probe-port', String(port), '--lease-namespace', 'default', '--lease-duration-ms', '3000', '--log-level', 'warn'],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    const probe = `http://127.0.0.1:${port}`;
    await waitFor('operator process ready', async () => (await fetch(`${probe}/readyz`).catch(() => undefined))?.status === 200, 30_000);
    return { child, exit, probe };
  };

  it('SIGTERM releases the Lease and exits 0; after SIGKILL the follower takes over once the Lease expires', async () => {
    const first = await spawnOperator();
    await waitFor('process leads', async () => (await holder())?.length);
    follower = await startTestOperator(cp, { leaderElection: { namespace: 'default', leaseName, identity: 'in-process', leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 200 } });
    const metrics = await (await fetch(`${first.probe}/metrics`)).text();
    expect(metrics).toMatch(/hyphae_operator_leader 1/);

    first.child.kill('SIGTERM');
    expect(await first.exit).toBe(0);
    await waitFor('in-process took over', async () => follower?.isLeader());
    expect(await holder()).toBe('in-process');

    // Hand leadership back to a new process, then kill it hard: no release this time.
    await follower.stop();
    follower = undefined;
    const second = await spawnOperator();
    const killedIdentity = await waitFor('second process leads', async () => {
      const h = await holder();
      return h !== undefined && h !== '' && h !== 'in-process' ? h : undefined;
    });
    follower = await startTestOperator(cp, { leaderElection: { namespace: 'default', leaseName, identity: 'in-process-2', leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 200 } });
    second.child.kill('SIGKILL');
    await second.exit;
    // A killed process releases nothing: the Lease still names it until it expires.
    expect(await holder()).toBe(killedIdentity);
    await waitFor('takeover after expiry', async () => follower?.isLeader(), 20_000);
    expect(await holder()).toBe('in-process-2');
  });
});
