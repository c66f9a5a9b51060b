// One reconcile of one HyphaeMesh: compute the desired objects, server-side apply those whose
// live copy differs, delete owned objects no longer desired, and write status only on change.
// Reads come from informer caches, so an unchanged mesh costs zero API requests.
import type { HyphaeMeshStatus } from '../crd/hyphae-mesh-schema.js';
import { OperatorError, isNotFound } from '../errors.js';
import type { KubeClient } from '../kube/kube-client.js';
import type { Informer } from '../kube/informer.js';
import type { KubeObject } from '../kube/kube-object.js';
import type { ResourceType } from '../kube/resource-types.js';
import { CNPG_CLUSTER, DEPLOYMENT, SECRET, STATEFUL_SET, apiVersionOf, typeKey, typeKeyOf } from '../kube/resource-types.js';
import { FIELD_MANAGER, names } from '../desired/common.js';
import { desiredSet } from '../desired/desired-set.js';
import { effectiveSpec } from '../desired/hyphae-mesh.js';
import type { HyphaeMesh } from '../desired/hyphae-mesh.js';
import { generatePassword, passwordFromSecret } from '../desired/postgres-secret.js';
import type { Logger } from '../runtime/logger.js';
import { errorMessage } from '../runtime/logger.js';
import type { OperatorMetrics } from '../runtime/operator-metrics.js';
import { needsApply, withDesiredHash } from './live-compare.js';
import { desiredStatus, statusEqual, withTransitionTimes } from './mesh-status.js';

export interface ReconcilerDeps {
  client: KubeClient;
  meshes: Informer<HyphaeMesh>;
  /** Caches of owned kinds, by typeKey; optional kinds appear once discovered. */
  owned: ReadonlyMap<string, Informer<KubeObject>>;
  availableKinds: () => ReadonlySet<string>;
  metrics: OperatorMetrics;
  log: Logger;
  now?: () => Date;
}

export interface ReconcileOutcome {
  applied: number;
  unchanged: number;
  deleted: number;
  statusWritten: boolean;
}

export class MeshReconciler {
  constructor(private readonly deps: ReconcilerDeps) {}

  async reconcile(key: string): Promise<ReconcileOutcome | undefined> {
    const [namespace, name] = key.split('/') as [string, string];
    const mesh = this.deps.meshes.get(namespace, name);
    // Deleted: owner references let the garbage collector remove everything we created.
    if (!mesh || mesh.metadata.deletionTimestamp) return undefined;
    const spec = effectiveSpec(mesh);
    const outcome: ReconcileOutcome = { applied: 0, unchanged: 0, deleted: 0, statusWritten: false };

    const password = spec.postgres.mode === 'managed' ? await this.postgresPassword(mesh) : '';
    const desired = desiredSet(mesh, spec, { postgresPassword: password, availableKinds: this.deps.availableKinds() });

    let applyError: string | undefined;
    const wanted = new Set<string>();
    for (const raw of desired.objects) {
      const obj = withDesiredHash(raw);
      const kind = typeKeyOf(obj);
      wanted.add(`${kind}/${obj.metadata.name}`);
      const cache = this.deps.owned.get(kind);
      if (!needsApply(obj, cache?.get(namespace, obj.metadata.name))) {
        outcome.unchanged++;
        this.deps.metrics.applies.inc({ kind: obj.kind, action: 'unchanged' });
        continue;
      }
      try {
        const live = await this.deps.client.apply<KubeObject>(obj, FIELD_MANAGER);
        cache?.observe(live);
        outcome.applied++;
        this.deps.metrics.applies.inc({ kind: obj.kind, action: 'applied' });
      } catch (err) {
        applyError ??= `apply ${obj.kind}/${obj.metadata.name}: ${errorMessage(err)}`;
        this.deps.log('warn', 'apply failed', { mesh: key, kind: obj.kind, name: obj.metadata.name, error: errorMessage(err) });
      }
    }

    outcome.deleted = await this.prune(mesh, wanted).catch((err: unknown) => {
      applyError ??= `prune: ${errorMessage(err)}`;
      return 0;
    });

    const status = withTransitionTimes(
      desiredStatus(mesh, spec, {
        apiDeployment: this.cached(DEPLOYMENT, namespace, names.api(mesh)),
        workerDeployment: this.cached(DEPLOYMENT, namespace, names.worker(mesh)),
        postgresStatefulSet: spec.postgres.mode === 'managed' ? this.cached(STATEFUL_SET, namespace, names.postgres(mesh)) : undefined,
        natsStatefulSet: spec.nats.mode === 'managed' ? this.cached(STATEFUL_SET, namespace, names.nats(mesh)) : undefined,
        cnpgCluster: spec.postgres.mode === 'cnpg' ? this.cached(CNPG_CLUSTER, namespace, names.cnpgCluster(mesh)) : undefined,
        missingKinds: desired.missingKinds,
        applyError,
      }),
      mesh.status,
      this.deps.now?.() ?? new Date(),
    );
    if (!statusEqual(mesh.status, status)) {
      await this.writeStatus(mesh, status);
      outcome.statusWritten = true;
    }
    if (applyError) throw new OperatorError('KUBE_REQUEST_FAILED', applyError);
    return outcome;
  }

  private cached(rt: ResourceType, namespace: string, name: string): KubeObject | undefined {
    return this.deps.owned.get(typeKey(rt))?.get(namespace, name);
  }

  /** The managed database password: from the cache, else the live Secret, else a new one (first creation only). */
  private async postgresPassword(mesh: HyphaeMesh): Promise<string> {
    const name = names.postgres(mesh);
    const cached = passwordFromSecret(this.cached(SECRET, mesh.metadata.namespace, name));
    if (cached) return cached;
    // The cache may lag behind our own first apply; regenerating would lock the database out.
    try {
      const live = await this.deps.client.read<KubeObject>({ apiVersion: apiVersionOf(SECRET), kind: SECRET.kind, metadata: { name, namespace: mesh.metadata.namespace } });
      const pw = passwordFromSecret(live);
      if (pw) return pw;
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
    return generatePassword();
  }

  private async prune(mesh: HyphaeMesh, wanted: ReadonlySet<string>): Promise<number> {
    let deleted = 0;
    for (const [key, informer] of this.deps.owned) {
      for (const obj of informer.list()) {
        if (obj.metadata.namespace !== mesh.metadata.namespace || obj.metadata.deletionTimestamp) continue;
        const controller = obj.metadata.ownerReferences?.find((r) => r.controller);
        if (controller?.uid !== mesh.metadata.uid || wanted.has(`${key}/${obj.metadata.name}`)) continue;
        // Keep the managed database's credentials even when it is switched off: its PVC outlives
        // the StatefulSet, and a regenerated password would lock the data out on switching back.
        if (informer.type === SECRET && obj.metadata.name === names.postgres(mesh)) continue;
        try {
          await this.deps.client.delete(obj);
        } catch (err) {
          if (!isNotFound(err)) throw err;
        }
        informer.forget(obj);
        deleted++;
        this.deps.metrics.applies.inc({ kind: informer.type.kind, action: 'deleted' });
      }
    }
    return deleted;
  }

  private async writeStatus(mesh: HyphaeMesh, status: HyphaeMeshStatus): Promise<void> {
    const body = { apiVersion: mesh.apiVersion, kind: mesh.kind, metadata: { name: mesh.metadata.name, namespace: mesh.metadata.namespace }, status };
    const live = await this.deps.client.apply<HyphaeMesh>(body, FIELD_MANAGER, 'status');
    this.deps.meshes.observe(live);
  }
}
