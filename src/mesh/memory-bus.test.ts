import { describe, expect, it } from 'vitest';
import type { Diff } from '../core/entities.js';
import { UnavailableError } from '../core/errors.js';
import { beaconSubject } from './bus.js';
import type { DiffEnvelope } from './bus.js';
import { MemoryBus } from './memory-bus.js';

function envelope(seq: number, beaconId = 'b1'): DiffEnvelope {
  const diff: Diff = {
    diff_id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    seq,
    op: 'created',
    node_id: '00000000-0000-4000-8000-000000000001',
    beacon_id: beaconId,
    similarity: 0.9,
    cell_type: 'Fact',
    salience: 0.5,
    source_agent: 'writer',
    project: 'p',
    scene_id: null,
    preview: 'hello',
    created_at: new Date(0).toISOString(),
    supersedes: null,
    source_id: null,
  };
  return { tenantId: 't1', recipientAgent: 'reader', diff };
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('MemoryBus', () => {
  it('delivers to exact and wildcard subscribers, in publish order, asynchronously', async () => {
    const bus = new MemoryBus();
    const exact: number[] = [];
    const wildcard: number[] = [];
    const other: number[] = [];
    await bus.subscribe(beaconSubject('t1', 'b1'), (e) => exact.push(e.diff.seq));
    await bus.subscribe('hyphae.t1.beacon.*', (e) => wildcard.push(e.diff.seq));
    await bus.subscribe('hyphae.t2.>', (e) => other.push(e.diff.seq));
    await bus.publish(beaconSubject('t1', 'b1'), envelope(1));
    await bus.publish(beaconSubject('t1', 'b2'), envelope(2, 'b2'));
    expect(exact).toEqual([]);
    await tick();
    expect(exact).toEqual([1]);
    expect(wildcard).toEqual([1, 2]);
    expect(other).toEqual([]);
  });

  it('gives each subscriber its own copy', async () => {
    const bus = new MemoryBus();
    const seen: DiffEnvelope[] = [];
    await bus.subscribe('hyphae.>', (e) => seen.push(e));
    await bus.subscribe('hyphae.>', (e) => seen.push(e));
    const sent = envelope(1);
    await bus.publish(beaconSubject('t1', 'b1'), sent);
    await tick();
    expect(seen).toHaveLength(2);
    expect(seen[0]).toEqual(sent);
    expect(seen[0]).not.toBe(sent);
    expect(seen[0]).not.toBe(seen[1]);
  });

  it('stops delivering after unsubscribe, even a message already in flight', async () => {
    const bus = new MemoryBus();
    const seen: number[] = [];
    const subscription = await bus.subscribe('hyphae.>', (e) => seen.push(e.diff.seq));
    await bus.publish(beaconSubject('t1', 'b1'), envelope(1));
    await subscription.unsubscribe();
    await tick();
    expect(seen).toEqual([]);
  });

  it('rejects wildcard publish subjects and fails once closed', async () => {
    const bus = new MemoryBus();
    await expect(bus.publish('hyphae.*.beacon.b1', envelope(1))).rejects.toMatchObject({ code: 'INVALID_ARGUMENT' });
    expect(bus.isConnected()).toBe(true);
    await bus.close();
    expect(bus.isConnected()).toBe(false);
    await expect(bus.publish(beaconSubject('t1', 'b1'), envelope(1))).rejects.toBeInstanceOf(UnavailableError);
  });
});
