// LeaderElector against a real Lease on a real kube-apiserver: write races decided by the
// server's resourceVersion check (409), the holder's own lease duration, the renew-deadline
// guard against split brain, callbacks that throw, and leaseTransitions. Time is a ManualClock
// shared by the candidates, so every assertion is about order and state, not about elapsed time.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { KubeClient } from '../../operator/src/kube/kube-client.js';
import { isWrite } from '../../operator/src/kube/request-log.js';
import { LEASE, collectionPath, objectPath } from '../../operator/src/kube/resource-types.js';
import { ManualClock } from '../../operator/src/controller/manual-clock.js';
import { microTime } from '../../operator/src/controller/leader-election.js';
import { k8sSkipReason } from '../support/k8s/assets.js';
import { startControlPlane } from '../support/k8s/control-plane.js';
import type { ControlPlane } from '../support/k8s/control-plane.js';
import { clientFor } from '../support/k8s/kube-helpers.js';
import { Barrier, LEASE_DURATION_MS, LEASE_NAMESPACE, RENEW_DEADLINE_MS, RETRY_MS, candidate, leaseSpec, step } from './lease-candidates.js';
import type { Candidate, CandidateOptions } from './lease-candidates.js';

const skip = k8sSkipReason();

describe.skipIf(skip !== undefined)('LeaderElector on a real Lease', () => {
  let cp: ControlPlane;
  let client: KubeClient;
  let leaseCounter = 0;
  let lease: string;
  let time: ManualClock;
  let timeline: string[];
  let started: Candidate[] = [];

  beforeAll(async () => {
    cp = await startControlPlane();
    client = clientFor(cp);
  });
  afterEach(async () => {
    for (const c of started) await c.close();
    started = [];
  });
  afterAll(async () => {
    client?.close();
    await cp?.stop();
  });

  const fresh = (): void => {
    lease = `elector-${process.pid}-${++leaseCounter}`;
    time = new ManualClock();
    timeline = [];
  };
  const join = async (identity: string, options?: CandidateOptions): Promise<Candidate> => {
    const c = await candidate(cp, time, lease, identity, timeline, options);
    started.push(c);
    return c;
  };
  const conflicts = (cs: readonly Candidate[]): number => cs.flatMap((c) => c.link.real.log.all()).filter((r) => r.path.includes('/leases') && r.status === 409).length;
  const leaders = (cs: readonly Candidate[]): string[] => cs.filter((c) => c.elector.isLeader()).map((c) => c.identity);
  const writeLease = (spec: Record<string, unknown>): Promise<unknown> =>
    client.request({ method: 'POST', path: collectionPath(LEASE, LEASE_NAMESPACE), body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: lease }, spec } });

  it('candidates racing to create the Lease: the server lets one win, the others get 409 and follow', async () => {
    fresh();
    const barrier = new Barrier(4);
    const cs = await Promise.all(['c1', 'c2', 'c3', 'c4'].map((id) => join(id)));
    // Every candidate has read "not found" before any of them writes: four real POSTs race.
    for (const c of cs) c.link.holdFirstRead(barrier);
    await Promise.all(cs.map((c) => c.start()));
    expect(conflicts(cs)).toBe(3);
    expect(leaders(cs)).toHaveLength(1);
    const [winner] = leaders(cs);
    expect(timeline).toEqual([`${winner} started`]);
    expect(await leaseSpec(client, lease)).toMatchObject({ holderIdentity: winner, leaseTransitions: 0 });

    // The next round changes nothing: the followers see a valid Lease and write nothing.
    const marks = new Map(cs.map((c) => [c, c.link.real.log.mark()]));
    await step(time, RETRY_MS, cs);
    expect(leaders(cs)).toEqual([winner]);
    const followerWrites = cs.filter((c) => c.identity !== winner).flatMap((c) => c.link.real.log.since(marks.get(c) ?? 0).filter(isWrite));
    expect(followerWrites).toEqual([]);
  });

  it('candidates racing for a released Lease: one update wins on the resourceVersion, the others get 409', async () => {
    fresh();
    await writeLease({ holderIdentity: '', leaseDurationSeconds: 1, leaseTransitions: 5 });
    const barrier = new Barrier(3);
    const cs = await Promise.all(['r1', 'r2', 'r3'].map((id) => join(id)));
    for (const c of cs) c.link.holdFirstRead(barrier);
    await Promise.all(cs.map((c) => c.start()));
    expect(conflicts(cs)).toBe(2);
    expect(leaders(cs)).toHaveLength(1);
    expect(timeline).toHaveLength(1);
    expect(await leaseSpec(client, lease)).toMatchObject({ holderIdentity: leaders(cs)[0], leaseTransitions: 6 });
  });

  it("waits out the holder's own leaseDurationSeconds, counted from the holder's last renewal", async () => {
    fresh();
    // Another holder with a 60 s lease; ours is 5 s.
    await writeLease({ holderIdentity: 'other', leaseDurationSeconds: 60, renewTime: microTime(new Date()), leaseTransitions: 2 });
    const c = await join('patient');
    await c.start(); // observes the record at t0
    const mark = c.link.real.log.mark();

    await step(time, 10_000, [c]); // t0+10 s: expired by our 5 s, not by their 60 s
    expect(c.elector.isLeader()).toBe(false);

    await step(time, 40_000, [c]); // t0+50 s
    expect(c.elector.isLeader()).toBe(false);
    // The holder renews; the candidate sees the changed record at its next attempt.
    const path = objectPath(LEASE, LEASE_NAMESPACE, lease);
    const current = await client.get<{ metadata: Record<string, unknown>; spec: Record<string, unknown> }>(path);
    await client.request({ method: 'PUT', path, body: { ...current, spec: { ...current.spec, renewTime: microTime(new Date(time.now())) } } });
    await step(time, 1_000, [c]); // t0+51 s: sees the renewal
    await step(time, 40_000, [c]); // t0+91 s: 91 s since first seen, but only 40 s since the renewal
    expect(c.elector.isLeader()).toBe(false);
    expect(c.link.real.log.since(mark).filter(isWrite)).toEqual([]);
    expect((await leaseSpec(client, lease)).holderIdentity).toBe('other');

    await step(time, 20_000, [c]); // t0+111 s: 60 s without a change
    expect(c.elector.isLeader()).toBe(true);
    expect(await leaseSpec(client, lease)).toMatchObject({ holderIdentity: 'patient', leaseDurationSeconds: 5, leaseTransitions: 3 });
  });

  it.each(['hang', 'fail'] as const)(
    'a leader whose renewals %s steps down at renewDeadline, before the follower may take over (no split brain)',
    async (mode) => {
      fresh();
      const overlaps: string[][] = [];
      const a = await join('a');
      await a.start();
      const b = await join('b', { onStartedLeading: () => void overlaps.push(leaders([a, b])) });
      await b.start();
      expect(timeline).toEqual(['a started']);

      a.link.partition(mode);
      // Step the shared time one retry period at a time until the follower has taken over.
      for (let t = 0; !b.elector.isLeader(); t += RETRY_MS) {
        expect(t, 'the follower never took over').toBeLessThanOrEqual(LEASE_DURATION_MS + RETRY_MS);
        await step(time, RETRY_MS, mode === 'fail' ? [a, b] : [b]);
      }
      expect(timeline).toEqual(['a started', 'a stopped', 'b started']);
      // When b started leading, a had already stopped.
      expect(overlaps).toEqual([['b']]);
      expect(RENEW_DEADLINE_MS).toBeLessThan(LEASE_DURATION_MS);

      // The partition heals: a's next attempt (for 'hang', the one held so far) sees b's Lease and a follows.
      if (mode === 'hang') {
        const aDone = a.attemptDone();
        a.link.heal();
        await aDone;
      } else {
        a.link.heal();
        await step(time, RETRY_MS, [a, b]);
      }
      expect(leaders([a, b])).toEqual(['b']);
      expect(timeline).toEqual(['a started', 'a stopped', 'b started']);
      expect(await leaseSpec(client, lease)).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    },
  );

  it('a renewal that lands only after renewDeadline does not count; the next timely one does', async () => {
    fresh();
    const a = await join('a');
    await a.start();
    a.link.partition('hang');
    time.advance(RETRY_MS);
    await a.link.requestHeld(); // the renewal has started, and hangs
    time.advance(LEASE_DURATION_MS); // past renewDeadline: the guard steps down
    expect(timeline).toEqual(['a started', 'a stopped']);
    const late = a.attemptDone();
    a.link.heal(); // the renewal now goes through, late
    await late;
    expect((await leaseSpec(client, lease)).holderIdentity).toBe('a');
    expect(a.elector.isLeader()).toBe(false);
    await step(time, RETRY_MS, [a]);
    expect(a.elector.isLeader()).toBe(true);
    expect(timeline).toEqual(['a started', 'a stopped', 'a started']);
  });

  it('onStartedLeading throwing: the candidate steps down and releases the Lease at once, then campaigns again', async () => {
    fresh();
    let fail = true;
    const a = await join('a', {
      onStartedLeading: () => {
        if (fail) throw new Error('cannot start');
      },
    });
    const aHoldsOff = a.attemptDone(LEASE_DURATION_MS);
    a.elector.start();
    await aHoldsOff; // after a failed start it sits out one lease duration
    fail = false;
    expect(a.elector.isLeader()).toBe(false);
    expect(timeline).toEqual(['a started', 'a stopped']);
    expect((await leaseSpec(client, lease)).holderIdentity).toBe('');

    // Released, not abandoned: another candidate takes over on its first attempt, without waiting for expiry.
    const b = await join('b');
    await b.start();
    expect(b.elector.isLeader()).toBe(true);

    // a keeps campaigning: once b is gone, a leads.
    await b.elector.stop();
    await step(time, LEASE_DURATION_MS, [a]);
    expect(a.elector.isLeader()).toBe(true);
    expect(timeline).toEqual(['a started', 'a stopped', 'b started', 'b stopped', 'a started']);
  });

  it('onStoppedLeading throwing: stop() still resolves and releases the Lease; a step-down keeps campaigning', async () => {
    fresh();
    const a = await join('a', {
      onStoppedLeading: () => {
        throw new Error('cannot stop cleanly');
      },
    });
    await a.start();
    a.link.partition('fail');
    await step(time, RETRY_MS, [a]);
    await step(time, RETRY_MS, [a]);
    await step(time, RETRY_MS, [a]);
    await step(time, RETRY_MS, [a]);
    expect(timeline).toEqual(['a started', 'a stopped']);
    a.link.heal();
    await step(time, RETRY_MS, [a]); // its own Lease, not yet taken: a renews and leads again
    expect(timeline).toEqual(['a started', 'a stopped', 'a started']);

    await expect(a.elector.stop()).resolves.toBeUndefined();
    expect(timeline).toEqual(['a started', 'a stopped', 'a started', 'a stopped']);
    expect((await leaseSpec(client, lease)).holderIdentity).toBe('');
  });

  it('stop() during an attempt that then acquires the Lease still releases it', async () => {
    fresh();
    const a = await join('a');
    a.link.partition('hang');
    a.elector.start(); // the first read hangs
    const stopping = a.elector.stop();
    a.link.heal(); // the attempt goes through and creates the Lease as a
    await stopping;
    expect(a.elector.isLeader()).toBe(false);
    expect(timeline).toEqual([]);
    expect(await leaseSpec(client, lease)).toMatchObject({ holderIdentity: '', leaseTransitions: 0 });
  });

  it('counts leaseTransitions on changes of holder only, and keeps acquireTime across renewals', async () => {
    fresh();
    const a = await join('a');
    await a.start();
    const first = await leaseSpec(client, lease);
    expect(first).toMatchObject({ holderIdentity: 'a', leaseTransitions: 0 });
    await step(time, RETRY_MS, [a]);
    await step(time, RETRY_MS, [a]);
    const renewed = await leaseSpec(client, lease);
    expect(renewed).toMatchObject({ holderIdentity: 'a', leaseTransitions: 0, acquireTime: first.acquireTime });
    expect(renewed.renewTime).not.toBe(first.renewTime);

    await a.elector.stop(); // released: holder cleared, count unchanged
    expect(await leaseSpec(client, lease)).toMatchObject({ holderIdentity: '', leaseTransitions: 0 });
    const b = await join('b');
    await b.start();
    expect(await leaseSpec(client, lease)).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });

    // b is cut off; a (campaigning again) takes over once b's Lease expires.
    const a2 = await join('a');
    await a2.start();
    b.link.partition('fail');
    while (!a2.elector.isLeader()) await step(time, RETRY_MS, [a2, b]);
    const taken = await leaseSpec(client, lease);
    expect(taken).toMatchObject({ holderIdentity: 'a', leaseTransitions: 2 });
    expect(taken.acquireTime).not.toBe(first.acquireTime);
  });
});
