// The pure parts of leader election: when a Lease counts as held by someone else (by the
// holder's own duration, measured from when we saw its record change), and what a candidate
// writes to take or renew it. The elector's behaviour against a real Lease is in test/k8s.
import { describe, expect, it } from 'vitest';
import { claimedSpec, heldByOther, microTime } from './leader-election.js';

const T0 = Date.parse('2026-01-01T00:00:00Z');

describe('heldByOther', () => {
  const held = { holderIdentity: 'other', leaseDurationSeconds: 60 };

  it("uses the holder's leaseDurationSeconds, not ours", () => {
    // Ours (the fallback) is 2 s: far shorter than the holder's 60 s.
    expect(heldByOther(held, 'me', T0, T0 + 5_000, 2_000)).toBe(true);
    expect(heldByOther(held, 'me', T0, T0 + 59_999, 2_000)).toBe(true);
    expect(heldByOther(held, 'me', T0, T0 + 60_000, 2_000)).toBe(false);
    // And a holder with a shorter duration than ours expires on its own terms.
    expect(heldByOther({ holderIdentity: 'other', leaseDurationSeconds: 1 }, 'me', T0, T0 + 1_000, 60_000)).toBe(false);
  });

  it('measures from when the record was last seen changing, not from its renewTime', () => {
    // A renewTime from a skewed clock an hour in the past changes nothing.
    const skewed = { ...held, renewTime: microTime(new Date(T0 - 3_600_000)) };
    expect(heldByOther(skewed, 'me', T0, T0 + 30_000, 2_000)).toBe(true);
  });

  it('falls back to our duration only when the holder wrote none', () => {
    expect(heldByOther({ holderIdentity: 'other' }, 'me', T0, T0 + 14_999, 15_000)).toBe(true);
    expect(heldByOther({ holderIdentity: 'other' }, 'me', T0, T0 + 15_000, 15_000)).toBe(false);
  });

  it('never counts a released Lease or our own as held by another', () => {
    expect(heldByOther({ holderIdentity: '', leaseDurationSeconds: 60 }, 'me', T0, T0, 2_000)).toBe(false);
    expect(heldByOther({ leaseDurationSeconds: 60 }, 'me', T0, T0, 2_000)).toBe(false);
    expect(heldByOther({ holderIdentity: 'me', leaseDurationSeconds: 60 }, 'me', T0, T0, 2_000)).toBe(false);
  });
});

describe('claimedSpec', () => {
  const now = new Date(T0);
  const later = new Date(T0 + 5_000);

  it('creates a Lease with zero transitions and our duration, rounded up to whole seconds', () => {
    expect(claimedSpec(undefined, 'me', now, 2_500)).toEqual({
      holderIdentity: 'me',
      leaseDurationSeconds: 3,
      acquireTime: microTime(now),
      renewTime: microTime(now),
      leaseTransitions: 0,
    });
  });

  it('renewing keeps acquireTime and leaseTransitions and moves renewTime', () => {
    const mine = claimedSpec({ holderIdentity: 'other', leaseTransitions: 4 }, 'me', now, 15_000);
    expect(mine.leaseTransitions).toBe(5);
    const renewed = claimedSpec(mine, 'me', later, 15_000);
    expect(renewed).toEqual({ ...mine, renewTime: microTime(later) });
  });

  it('taking over from another holder or a released Lease counts one transition and restarts acquireTime', () => {
    const fromOther = claimedSpec({ holderIdentity: 'other', acquireTime: microTime(now), leaseTransitions: 2 }, 'me', later, 15_000);
    expect(fromOther).toMatchObject({ holderIdentity: 'me', leaseTransitions: 3, acquireTime: microTime(later) });
    const fromReleased = claimedSpec({ holderIdentity: '', leaseTransitions: 7 }, 'me', later, 15_000);
    expect(fromReleased.leaseTransitions).toBe(8);
    // A Lease written without the field (transitions unknown) starts counting at one.
    expect(claimedSpec({ holderIdentity: 'other' }, 'me', later, 15_000).leaseTransitions).toBe(1);
  });
});
