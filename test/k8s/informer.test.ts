// The informer's recovery paths against a real API server: 410 Gone → relist, and the watchdog
// restarting a watch that has gone silent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WatchExpiredError } from '../../operator/src/errors.js';
import { Informer } from '../../operator/src/kube/informer.js';
import type { KubeClient } from '../../operator/src/kube/kube-client.js';
import type { KubeObject } from '../../operator/src/kube/kube-object.js';
import { CONFIG_MAP, HYPHAE_MESH, collectionPath } from '../../operator/src/kube/resource-types.js';
import { k8sSkipReason } from '../support/k8s/assets.js';
import { startControlPlane } from '../support/k8s/control-plane.js';
import type { ControlPlane } from '../support/k8s/control-plane.js';
import { clientFor, createNamespace } from '../support/k8s/kube-helpers.js';
import { waitFor } from '../support/wait-for.js';
import { startTestOperator } from '../support/k8s/operator-harness.js';

const skip = k8sSkipReason();

describe.skipIf(skip !== undefined)('informer on a real kube-apiserver', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let ns: string;

  beforeAll(async () => {
    // Compact etcd every second and serve watches from etcd (the watch cache answers old
    // versions with synthetic events), so an old resourceVersion really is "too old" (410).
    cp = await startControlPlane({ apiserverArgs: ['--etcd-compaction-interval=1s', '--watch-cache=false'] });
    client = clientFor(cp);
    ns = await createNamespace(client, 'inf');
    for (const name of ['a', 'b', 'c']) {
      await client.request({ method: 'POST', path: collectionPath(CONFIG_MAP, ns), body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name } } });
    }
  });
  afterAll(async () => {
    client?.close();
    await cp?.stop();
  });

  it('the server answers a too-old resourceVersion with 410, which the client surfaces as WatchExpiredError', async () => {
    const err = await waitFor('410 Gone after compaction', async () => {
      const ended = new Promise<unknown>((resolve) => {
        void client.watch(collectionPath(CONFIG_MAP, ns), { resourceVersion: '1' }, () => undefined, resolve).then((watch) => setTimeout(() => watch.abort(), 1000));
      });
      const outcome = await ended;
      return outcome instanceof WatchExpiredError ? outcome : undefined;
    });
    expect(err).toBeInstanceOf(WatchExpiredError);
  });

  it('relists after 410 Gone and ends up with the full set', async () => {
    const restarts: string[] = [];
    const informer = new Informer<KubeObject>(client, CONFIG_MAP, {
      namespace: ns,
      startResourceVersion: '1',
      onEvent: () => undefined,
      onRestart: (r) => restarts.push(r),
    });
    informer.start();
    await informer.waitForSync();
    expect(restarts).toContain('expired');
    expect(informer.list().map((c) => c.metadata.name).sort()).toEqual(['a', 'b', 'c']);
    await informer.stop();
  });

  it('the watchdog restarts a silent watch, and events keep flowing afterwards', async () => {
    const restarts: string[] = [];
    const seen: string[] = [];
    const informer = new Informer<KubeObject>(client, CONFIG_MAP, {
      namespace: ns,
      watchTimeoutSeconds: 3600,
      watchdogMs: 400,
      onEvent: (type, obj) => seen.push(`${type} ${obj.metadata.name}`),
      onRestart: (r) => restarts.push(r),
    });
    informer.start();
    await informer.waitForSync();
    await waitFor('watchdog fired twice', async () => restarts.filter((r) => r === 'watchdog').length >= 2, 10_000);
    await client.request({ method: 'POST', path: collectionPath(CONFIG_MAP, ns), body: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } } });
    await waitFor('event after restart', async () => seen.includes('ADDED late'));
    expect(informer.get(ns, 'late')).toBeDefined();
    await informer.stop();
  });

  it('an operator started before the HyphaeMesh CRD exists stays unready and still stops cleanly', async () => {
    const op = await startTestOperator(cp, { leaderElection: { enabled: false } });
    // Two failed lists of HyphaeMeshes: the informer has handled the first 404 (and retried)
    // instead of syncing on it, which is the moment readiness would have flipped.
    const meshList = collectionPath(HYPHAE_MESH);
    await waitFor('two failed HyphaeMesh lists', async () => op.client.log.all().filter((r) => r.method === 'GET' && r.path === meshList && r.status === 404).length >= 2);
    expect((await fetch(`${op.probeUrl}/readyz`)).status).toBe(503);
    expect((await fetch(`${op.probeUrl}/healthz`)).status).toBe(200);
    expect(op.controller()?.hasSynced()).toBe(false);
    await op.stop();
  });
});
