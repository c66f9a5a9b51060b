import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { beaconSubject } from '../../src/mesh/bus.js';
import type { DiffEnvelope } from '../../src/mesh/bus.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { OutboxRelay } from '../../src/mesh/outbox-relay.js';
import type { Db } from '../../src/store/db.js';
import { createMeshTestDb, insertBeacon, insertDiff } from '../support/mesh/mesh-test-db.js';
import { busFailingWhen, ManualTimers } from './relay-faults.js';
import { waitFor } from '../support/wait-for.js';

describe('OutboxRelay on PGlite with the in-process bus', () => {
  let db: Db;
  beforeAll(async () => {
    db = await createMeshTestDb();
  });
  afterAll(async () => {
    await db.close();
  });
  beforeEach(async () => {
    await db.query('DELETE FROM diffs');
    await db.query('DELETE FROM inboxes');
  });

  it('publishes each unpublished diff once, on its beacon subject, in seq order, and marks it', async () => {
    const bus = new MemoryBus();
    const [b1, b2] = [randomUUID(), randomUUID()];
    const seen: DiffEnvelope[] = [];
    await bus.subscribe('hyphae.t1.beacon.*', (e) => seen.push(e));
    const subjects: string[] = [];
    await bus.subscribe(beaconSubject('t1', b2), (e) => subjects.push(e.diff.beacon_id));
    for (let i = 0; i < 5; i += 1) await insertDiff(db, 't1', 'reader', i % 2 === 0 ? b1 : b2);
    await insertDiff(db, 't1', 'other', b1);

    const relay = new OutboxRelay({ db, bus, batchSize: 2 });
    expect(await relay.relayAll()).toBe(6);
    expect(await relay.relayAll()).toBe(0);
    await waitFor(() => seen.length === 6);
    const reader = seen.filter((e) => e.recipientAgent === 'reader');
    expect(reader.map((e) => e.diff.seq)).toEqual([1, 2, 3, 4, 5]);
    expect(reader.every((e) => e.tenantId === 't1')).toBe(true);
    expect(subjects).toEqual([b2, b2]);
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM diffs WHERE published_at IS NULL');
    expect(rows[0]?.n).toBe(0);
    expect(await relay.outboxLagSeconds()).toBe(0);
  });

  it('runs in the background: a nudge publishes at once, lag is reported, stop ends the loop', async () => {
    const bus = new MemoryBus();
    const seen: number[] = [];
    const beacon = randomUUID();
    await insertBeacon(db, 't1', 'reader', beacon);
    await bus.subscribe(beaconSubject('t1', beacon), (e) => seen.push(e.diff.seq));
    const lags: number[] = [];
    const delivered: number[] = [];
    const relay = new OutboxRelay({
      db,
      bus,
      pollIntervalMs: 60_000,
      metrics: { setOutboxLag: (s) => lags.push(s), countDiffsDelivered: (_t, n) => delivered.push(n) },
    });
    await insertDiff(db, 't1', 'reader', beacon);
    relay.start();
    await waitFor(() => seen.length === 1);
    await insertDiff(db, 't1', 'reader', beacon);
    relay.nudge();
    await waitFor(() => seen.length === 2);
    await relay.stop();
    await insertDiff(db, 't1', 'reader', beacon);
    relay.nudge();
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM diffs WHERE published_at IS NULL');
    expect(rows[0]?.n).toBe(1);
    expect(seen).toEqual([1, 2]);
    expect(delivered.reduce((x, y) => x + y, 0)).toBe(2);
    expect(lags.length).toBeGreaterThan(0);
    expect(lags.every((lag) => lag === 0)).toBe(true);
  });

  const unpublishedSeqs = async (agent: string): Promise<number[]> =>
    (
      await db.query<{ seq: number }>(
        "SELECT seq::float8 AS seq FROM diffs WHERE published_at IS NULL AND recipient_agent = $1 ORDER BY seq",
        [agent],
      )
    ).rows.map((row) => row.seq);

  it('a publish failing mid-batch leaves that diff and the later ones of its inbox unpublished; they leave again in seq order', async () => {
    const inner = new MemoryBus();
    let broken = true;
    const bus = busFailingWhen(inner, (e) => broken && e.recipientAgent === 'reader' && e.diff.seq === 3);
    const beacon = randomUUID();
    for (let i = 0; i < 5; i += 1) {
      await insertDiff(db, 't1', 'reader', beacon);
      if (i < 2) await insertDiff(db, 't1', 'other', beacon);
    }
    const seen: [string, number][] = [];
    await inner.subscribe('hyphae.>', (e) => seen.push([e.recipientAgent, e.diff.seq]));
    const relay = new OutboxRelay({ db, bus, batchSize: 100 });

    const first = await relay.relayBatch();
    expect(first.claimed).toBe(7);
    expect(first.failure).toBeInstanceOf(Error);
    // reader's 1 and 2 went out and are marked; its 3 failed, so 4 and 5 stay unpublished even though they went out.
    expect(first.published).toBe(4);
    expect(await unpublishedSeqs('reader')).toEqual([3, 4, 5]);
    expect(await unpublishedSeqs('other')).toEqual([]);

    await waitFor(() => seen.length === 6);
    expect(seen.filter(([agent]) => agent === 'reader').map(([, seq]) => seq)).toEqual([1, 2, 4, 5]);

    broken = false;
    seen.length = 0;
    expect(await relay.relayAll()).toBe(3);
    await waitFor(() => seen.length === 3);
    expect(seen).toEqual([
      ['reader', 3],
      ['reader', 4],
      ['reader', 5],
    ]);
    expect(await unpublishedSeqs('reader')).toEqual([]);
  });

  it('backs off after each failed cycle, doubling up to the cap, and returns to the poll interval once a cycle succeeds', async () => {
    const inner = new MemoryBus();
    let broken = true;
    const bus = busFailingWhen(inner, () => broken);
    const timers = new ManualTimers();
    const errors: unknown[] = [];
    const relay = new OutboxRelay({
      db,
      bus,
      timers,
      pollIntervalMs: 5_000,
      minBackoffMs: 100,
      maxBackoffMs: 1_000,
      onError: (error) => errors.push(error),
    });
    await insertDiff(db, 't1', 'reader', randomUUID());
    relay.start();
    for (let cycle = 1; cycle < 7; cycle += 1) {
      await waitFor(() => timers.pending().length === 1 && errors.length === cycle);
      timers.fire();
    }
    await waitFor(() => timers.pending().length === 1 && errors.length === 7);
    expect(timers.scheduled.map((t) => t.delayMs)).toEqual([100, 200, 400, 800, 1_000, 1_000, 1_000]);
    expect(await unpublishedSeqs('reader')).toEqual([1]);

    broken = false;
    timers.fire();
    await waitFor(() => timers.pending().length === 1 && timers.scheduled.length === 8);
    expect(timers.scheduled.at(-1)?.delayMs).toBe(5_000);
    expect(await unpublishedSeqs('reader')).toEqual([]);
    expect(errors).toHaveLength(7);
    await relay.stop();
    expect(timers.pending()).toEqual([]);
  });

  it('sweeps on its poll interval without a nudge: a diff committed by another replica is published when the timer fires', async () => {
    const bus = new MemoryBus();
    const seen: number[] = [];
    await bus.subscribe('hyphae.>', (e) => seen.push(e.diff.seq));
    const timers = new ManualTimers();
    const relay = new OutboxRelay({ db, bus, timers, pollIntervalMs: 5_000 });
    relay.start();
    await waitFor(() => timers.pending().length === 1);
    expect(timers.pending()[0]?.delayMs).toBe(5_000);

    // Written the way another replica's facade would: no nudge reaches this relay.
    await insertDiff(db, 't1', 'reader', randomUUID());
    expect(await unpublishedSeqs('reader')).toEqual([1]);
    expect(seen).toEqual([]);

    timers.fire();
    await waitFor(async () => (await unpublishedSeqs('reader')).length === 0);
    await waitFor(() => timers.pending().length === 1 && seen.length === 1);
    expect(seen).toEqual([1]);
    expect(timers.scheduled.map((t) => t.delayMs)).toEqual([5_000, 5_000]);
    await relay.stop();
  });
});
