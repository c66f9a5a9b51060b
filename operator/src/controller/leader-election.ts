// Leader election on a coordination.k8s.io/v1 Lease, following client-go's algorithm: a lease
// is expired when its record has not changed for leaseDuration as measured on OUR clock since we
// last saw it change (so clock skew between replicas does not matter); updates use the
// resourceVersion, so two candidates can never both win; the leader releases on shutdown by
// clearing holderIdentity, letting a follower take over at once instead of after expiry.
import { isConflict, isNotFound } from '../errors.js';
import type { KubeClient } from '../kube/kube-client.js';
import { LEASE, collectionPath, objectPath } from '../kube/resource-types.js';
import type { Logger } from '../runtime/logger.js';
import { errorMessage } from '../runtime/logger.js';

export interface LeaseSpec {
  holderIdentity?: string;
  leaseDurationSeconds?: number;
  acquireTime?: string;
  renewTime?: string;
  leaseTransitions?: number;
}

interface Lease {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace: string; resourceVersion?: string };
  spec: LeaseSpec;
}

export interface LeaderElectionOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  onStartedLeading: () => void | Promise<void>;
  onStoppedLeading: () => void | Promise<void>;
  log: Logger;
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/Z$/, '000Z');
}

export class LeaderElector {
  private leading = false;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private observed: { record: string; at: number } | undefined;
  private lastRenew = 0;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;

  constructor(private readonly o: LeaderElectionOptions) {
    this.leaseDurationMs = o.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = o.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = o.retryPeriodMs ?? 2_000;
  }

  isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stop campaigning; if leading, run onStoppedLeading and release the Lease. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    if (this.leading) {
      this.leading = false;
      await this.o.onStoppedLeading();
      await this.release();
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      let ok = false;
      try {
        ok = await this.tryAcquireOrRenew();
      } catch (err) {
        this.o.log('warn', 'lease update failed', { error: errorMessage(err) });
      }
      if (!this.running) break;
      const now = Date.now();
      if (ok) {
        this.lastRenew = now;
        if (!this.leading) {
          this.leading = true;
          this.o.log('info', 'became leader', { identity: this.o.identity, lease: `${this.o.namespace}/${this.o.name}` });
          await this.o.onStartedLeading();
        }
      } else if (this.leading && now - this.lastRenew > this.renewDeadlineMs) {
        // Could not renew in time: another replica may take over any moment, so stop acting now.
        this.leading = false;
        this.o.log('warn', 'lost leadership', { identity: this.o.identity });
        await this.o.onStoppedLeading();
      }
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, this.retryPeriodMs);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  }

  private path(): string {
    return objectPath(LEASE, this.o.namespace, this.o.name);
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const now = new Date();
    let lease: Lease;
    try {
      lease = await this.o.client.get<Lease>(this.path());
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const created: Lease = {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: this.o.name, namespace: this.o.namespace },
        spec: this.record(now, now, 0),
      };
      try {
        await this.o.client.request({ method: 'POST', path: collectionPath(LEASE, this.o.namespace), body: created });
        return true;
      } catch (e) {
        if (isConflict(e)) return false;
        throw e;
      }
    }

    const spec = lease.spec;
    const recordKey = JSON.stringify([spec.holderIdentity, spec.renewTime, spec.leaseDurationSeconds]);
    if (this.observed?.record !== recordKey) this.observed = { record: recordKey, at: now.getTime() };
    const holder = spec.holderIdentity ?? '';
    const durationMs = (spec.leaseDurationSeconds ?? this.leaseDurationMs / 1000) * 1000;
    const expired = this.observed.at + durationMs < now.getTime();
    if (holder !== '' && holder !== this.o.identity && !expired) return false;

    const transitions = (spec.leaseTransitions ?? 0) + (holder === this.o.identity ? 0 : 1);
    const acquire = holder === this.o.identity && spec.acquireTime ? new Date(spec.acquireTime) : now;
    const updated: Lease = { ...lease, spec: this.record(acquire, now, transitions) };
    try {
      await this.o.client.request({ method: 'PUT', path: this.path(), body: updated });
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }

  private record(acquire: Date, renew: Date, transitions: number): LeaseSpec {
    return {
      holderIdentity: this.o.identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime: microTime(acquire),
      renewTime: microTime(renew),
      leaseTransitions: transitions,
    };
  }

  private async release(): Promise<void> {
    try {
      const lease = await this.o.client.get<Lease>(this.path());
      if (lease.spec.holderIdentity !== this.o.identity) return;
      const released: Lease = {
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(new Date()) },
      };
      await this.o.client.request({ method: 'PUT', path: this.path(), body: released });
      this.o.log('info', 'released lease', { identity: this.o.identity });
    } catch (err) {
      this.o.log('warn', 'lease release failed', { error: errorMessage(err) });
    }
  }
}
