// Leader election on a coordination.k8s.io/v1 Lease, following client-go's algorithm: a lease
// is expired when its record has not changed for the HOLDER's leaseDurationSeconds as measured on
// OUR clock since we last saw it change (so clock skew between replicas does not matter); updates
// carry the resourceVersion, so two candidates can never both win (the loser gets 409); a leader
// that has not renewed within renewDeadline stops acting even while a renewal is still hanging,
// well before the lease can expire for the others; the leader releases on shutdown by clearing
// holderIdentity, letting a follower take over at once instead of after expiry.
import { isConflict, isNotFound } from '../errors.js';
import type { KubeClient } from '../kube/kube-client.js';
import { LEASE, apiVersionOf } from '../kube/resource-types.js';
import type { Logger } from '../runtime/logger.js';
import { errorMessage } from '../runtime/logger.js';
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';

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
  /** Only reads and writes of the Lease itself go through it. */
  client: Pick<KubeClient, 'read' | 'create' | 'replace'>;
  namespace: string;
  name: string;
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  /** May throw: the elector then steps down, releases the Lease and sits out one lease duration. */
  onStartedLeading: () => void | Promise<void>;
  /** May throw: logged; the elector keeps campaigning (and still releases on stop). */
  onStoppedLeading: () => void | Promise<void>;
  log: Logger;
  /** Time for expiry, deadlines and retry sleeps; the system clock unless a test drives it. */
  clock?: Clock;
}

/** metav1.MicroTime: RFC 3339 with microseconds. */
export function microTime(d: Date): string {
  return d.toISOString().replace(/Z$/, '000Z');
}

/**
 * Whether a Lease is validly held by someone else at `now`: it names another holder, and its
 * record last changed (as we observed, at `unchangedSince` on our clock) less than the holder's
 * own leaseDurationSeconds ago. `fallbackDurationMs` applies when the holder wrote no duration.
 */
export function heldByOther(spec: LeaseSpec, identity: string, unchangedSince: number, now: number, fallbackDurationMs: number): boolean {
  const holder = spec.holderIdentity ?? '';
  if (holder === '' || holder === identity) return false;
  const durationMs = spec.leaseDurationSeconds !== undefined ? spec.leaseDurationSeconds * 1000 : fallbackDurationMs;
  return unchangedSince + durationMs > now;
}

/** The spec `identity` writes to take or renew the Lease: transitions count changes of holder only. */
export function claimedSpec(current: LeaseSpec | undefined, identity: string, now: Date, leaseDurationMs: number): LeaseSpec {
  const renewing = current?.holderIdentity === identity;
  const transitions = current === undefined ? 0 : (current.leaseTransitions ?? 0) + (renewing ? 0 : 1);
  return {
    holderIdentity: identity,
    leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
    acquireTime: renewing && current?.acquireTime ? current.acquireTime : microTime(now),
    renewTime: microTime(now),
    leaseTransitions: transitions,
  };
}

export class LeaderElector {
  private leading = false;
  private running = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private cancelDeadline: (() => void) | undefined;
  private observed: { record: string; at: number } | undefined;
  private lastRenew = 0;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private readonly clock: Clock;

  constructor(private readonly o: LeaderElectionOptions) {
    this.leaseDurationMs = o.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = o.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = o.retryPeriodMs ?? 2_000;
    this.clock = o.clock ?? systemClock;
  }

  isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stop campaigning; if leading, run onStoppedLeading; release the Lease if it names us. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    if (this.leading) await this.stepDown('stopping');
    // Always: an acquisition may have landed while we were stopping, before we knew we led.
    await this.release();
  }

  private async run(): Promise<void> {
    while (this.running) {
      const started = this.clock.now();
      let ok = false;
      try {
        ok = await this.tryAcquireOrRenew(started);
      } catch (err) {
        this.o.log('warn', 'lease update failed', { error: errorMessage(err) });
      }
      if (!this.running) break;
      // A renewal that took longer than renewDeadline is no proof of anything fresh.
      const fresh = ok && this.clock.now() - started <= this.renewDeadlineMs;
      let pause = this.retryPeriodMs;
      if (fresh) {
        this.renewed(started);
        if (!this.leading && !(await this.startLeading())) pause = this.leaseDurationMs;
      } else if (this.leading && this.clock.now() - this.lastRenew > this.renewDeadlineMs) {
        await this.stepDown('renew deadline passed');
      }
      if (this.running) await this.sleep(pause);
    }
  }

  /** Record a successful renewal and re-arm the split-brain guard: step down once renewDeadline passes without another. */
  private renewed(at: number): void {
    this.lastRenew = at;
    this.cancelDeadline?.();
    this.cancelDeadline = this.clock.after(Math.max(0, at + this.renewDeadlineMs - this.clock.now()), () => {
      this.cancelDeadline = undefined;
      if (this.leading) void this.stepDown('renew deadline passed');
    });
  }

  /** False when onStartedLeading threw: we have stepped down and released the Lease. */
  private async startLeading(): Promise<boolean> {
    this.leading = true;
    this.o.log('info', 'became leader', { identity: this.o.identity, lease: `${this.o.namespace}/${this.o.name}` });
    try {
      await this.o.onStartedLeading();
      return true;
    } catch (err) {
      this.o.log('error', 'onStartedLeading failed; stepping down', { identity: this.o.identity, error: errorMessage(err) });
      if (this.leading) await this.stepDown('onStartedLeading failed');
      await this.release();
      return false;
    }
  }

  private async stepDown(reason: string): Promise<void> {
    if (!this.leading) return;
    this.leading = false;
    this.cancelDeadline?.();
    this.cancelDeadline = undefined;
    this.o.log(reason === 'stopping' ? 'info' : 'warn', 'stopped leading', { identity: this.o.identity, reason });
    try {
      await this.o.onStoppedLeading();
    } catch (err) {
      this.o.log('error', 'onStoppedLeading failed', { identity: this.o.identity, error: errorMessage(err) });
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const cancel = this.clock.after(ms, resolve);
      this.wake = () => {
        cancel();
        resolve();
      };
    });
  }

  private ref(): Omit<Lease, 'spec'> {
    return { apiVersion: apiVersionOf(LEASE), kind: LEASE.kind, metadata: { name: this.o.name, namespace: this.o.namespace } };
  }

  private async tryAcquireOrRenew(startedAt: number): Promise<boolean> {
    const now = new Date(startedAt);
    let lease: Lease;
    try {
      lease = await this.o.client.read<Lease>(this.ref());
    } catch (err) {
      if (!isNotFound(err)) throw err;
      const created: Lease = { ...this.ref(), spec: claimedSpec(undefined, this.o.identity, now, this.leaseDurationMs) };
      return this.unlessConflict(() => this.o.client.create(created));
    }

    const spec = lease.spec;
    const seen = this.clock.now();
    const record = JSON.stringify([spec.holderIdentity, spec.renewTime, spec.leaseDurationSeconds]);
    if (this.observed?.record !== record) this.observed = { record, at: seen };
    if (heldByOther(spec, this.o.identity, this.observed.at, seen, this.leaseDurationMs)) return false;
    const updated: Lease = { ...lease, spec: claimedSpec(spec, this.o.identity, now, this.leaseDurationMs) };
    return this.unlessConflict(() => this.o.client.replace(updated));
  }

  /** A 409 means another candidate wrote first: we lost this round, which is not an error. */
  private async unlessConflict(write: () => Promise<unknown>): Promise<boolean> {
    try {
      await write();
      return true;
    } catch (err) {
      if (isConflict(err)) return false;
      throw err;
    }
  }

  private async release(): Promise<void> {
    try {
      const lease = await this.o.client.read<Lease>(this.ref());
      if (lease.spec.holderIdentity !== this.o.identity) return;
      const released: Lease = {
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: microTime(new Date(this.clock.now())) },
      };
      await this.o.client.replace(released);
      this.o.log('info', 'released lease', { identity: this.o.identity });
    } catch (err) {
      if (isNotFound(err)) return;
      this.o.log('warn', 'lease release failed', { error: errorMessage(err) });
    }
  }
}
