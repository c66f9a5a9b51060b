// Leader candidates against a real Lease: each LeaderElector talks to the real API server through
// its own real KubeClient, behind a link the test can partition (requests hang, or fail as a
// refused connection) or hold at a barrier (so several candidates read the same resourceVersion
// and then really race their writes). Time is a shared ManualClock, one view per candidate, so a
// test steps every candidate through the same instants and waits for each attempt to finish.
import type { KubeClient } from '../../operator/src/kube/kube-client.js';
import type { ObjectReference } from '../../operator/src/kube/object-api.js';
import { LEASE, objectPath } from '../../operator/src/kube/resource-types.js';
import type { LeaseSpec } from '../../operator/src/controller/leader-election.js';
import { LeaderElector } from '../../operator/src/controller/leader-election.js';
import type { ManualClock } from '../../operator/src/controller/manual-clock.js';
import { OperatorError } from '../../operator/src/errors.js';
import { silentLogger } from '../../operator/src/runtime/logger.js';
import type { ControlPlane } from '../support/k8s/control-plane.js';
import { clientFor } from '../support/k8s/kube-helpers.js';

export const RETRY_MS = 1_000;
export const RENEW_DEADLINE_MS = 3_500;
export const LEASE_DURATION_MS = 5_000;
export const LEASE_NAMESPACE = 'default';

/** Resolves every arrival once `size` candidates have arrived. */
export class Barrier {
  private arrived = 0;
  private release: () => void = () => undefined;
  private readonly all = new Promise<void>((resolve) => (this.release = resolve));
  constructor(private readonly size: number) {}
  arrive(): Promise<void> {
    if (++this.arrived >= this.size) this.release();
    return this.all;
  }
}

type LeaseClient = Pick<KubeClient, 'read' | 'create' | 'replace'>;

/** A real client behind a link the test can cut. */
export class FaultyLink {
  private mode: 'hang' | 'fail' | undefined;
  private held: Array<() => void> = [];
  private holdWaiters: Array<() => void> = [];
  private firstRead: Barrier | undefined;

  constructor(readonly real: KubeClient) {}

  readonly client: LeaseClient = {
    read: <T>(ref: ObjectReference): Promise<T> => this.pass(() => this.real.read<T>(ref), true),
    create: <T>(obj: ObjectReference): Promise<T> => this.pass(() => this.real.create<T>(obj), false),
    replace: <T>(obj: ObjectReference): Promise<T> => this.pass(() => this.real.replace<T>(obj), false),
  };

  /** 'hang': requests wait until heal() and then go through; 'fail': they fail at once. */
  partition(mode: 'hang' | 'fail'): void {
    this.mode = mode;
  }

  heal(): void {
    this.mode = undefined;
    for (const go of this.held.splice(0)) go();
  }

  /** Resolves once a request is being held by a 'hang' partition. */
  requestHeld(): Promise<void> {
    if (this.held.length > 0) return Promise.resolve();
    return new Promise((resolve) => this.holdWaiters.push(resolve));
  }

  /** The next read completes only when every candidate sharing `barrier` has read too. */
  holdFirstRead(barrier: Barrier): void {
    this.firstRead = barrier;
  }

  private async pass<T>(call: () => Promise<T>, read: boolean): Promise<T> {
    if (this.mode === 'fail') throw new OperatorError('KUBE_REQUEST_FAILED', 'connect ECONNREFUSED (partitioned by the test)');
    if (this.mode === 'hang') {
      const go = new Promise<void>((resolve) => this.held.push(resolve));
      for (const w of this.holdWaiters.splice(0)) w();
      await go;
    }
    const outcome = await call().then(
      (value) => ({ ok: true as const, value }),
      (error: unknown) => ({ ok: false as const, error }),
    );
    const barrier = read ? this.firstRead : undefined;
    if (barrier) {
      this.firstRead = undefined;
      await barrier.arrive();
    }
    if (!outcome.ok) throw outcome.error;
    return outcome.value;
  }
}

export interface Candidate {
  identity: string;
  elector: LeaderElector;
  clock: ManualClock;
  link: FaultyLink;
  /** Start campaigning and wait until the first attempt is over. */
  start(): Promise<void>;
  /** Wait until the attempt the next timer firing starts is over (it schedules its pause). */
  attemptDone(pauseMs?: number): Promise<void>;
  close(): Promise<void>;
}

export interface CandidateOptions {
  /** Replaces the default callbacks, which only record "<identity> started|stopped" in `timeline`. */
  onStartedLeading?: () => void | Promise<void>;
  onStoppedLeading?: () => void | Promise<void>;
}

export async function candidate(cp: ControlPlane, time: ManualClock, lease: string, identity: string, timeline: string[], options: CandidateOptions = {}): Promise<Candidate> {
  const link = new FaultyLink(clientFor(cp));
  const clock = time.view();
  const elector = new LeaderElector({
    client: link.client,
    namespace: LEASE_NAMESPACE,
    name: lease,
    identity,
    leaseDurationMs: LEASE_DURATION_MS,
    renewDeadlineMs: RENEW_DEADLINE_MS,
    retryPeriodMs: RETRY_MS,
    clock,
    log: silentLogger,
    onStartedLeading: async () => {
      timeline.push(`${identity} started`);
      await options.onStartedLeading?.();
    },
    onStoppedLeading: async () => {
      timeline.push(`${identity} stopped`);
      await options.onStoppedLeading?.();
    },
  });
  return {
    identity,
    elector,
    clock,
    link,
    start: async () => {
      const done = clock.nextScheduled(RETRY_MS);
      elector.start();
      await done;
    },
    attemptDone: (pauseMs = RETRY_MS) => clock.nextScheduled(pauseMs),
    close: async () => {
      link.heal();
      await elector.stop();
      link.real.close();
    },
  };
}

/**
 * Advance the shared time by `ms` and wait until each of `waitFor` has finished the attempt that
 * woke it (the others, e.g. a partitioned candidate, are not waited for).
 */
export async function step(time: ManualClock, ms: number, waitFor: readonly Candidate[]): Promise<void> {
  const done = waitFor.map((c) => c.attemptDone());
  time.advance(ms);
  await Promise.all(done);
}

export async function leaseSpec(client: KubeClient, lease: string): Promise<LeaseSpec> {
  return (await client.get<{ spec: LeaseSpec }>(objectPath(LEASE, LEASE_NAMESPACE, lease))).spec;
}
