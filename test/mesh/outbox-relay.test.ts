import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { beaconSubject } from '../../src/mesh/bus.js';
import type { DiffEnvelope } from '../../src/mesh/bus.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { OutboxRelay } from '../../src/mesh/outbox-relay.js';
import type { Db } from '../../src/store/db.js';
import { createMeshTestDb, insertBeacon, insertDiff } from './mesh-test-db.js';
import { waitFor } from './wait-for.js';

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

  it('two relays sweeping the same outbox publish every diff exactly once between them', async () => {
    const bus = new MemoryBus();
    const seen: number[] = [];
    await bus.subscribe('hyphae.>', (e) => seen.push(e.diff.seq));
    const beacon = randomUUID();
    for (let i = 0; i < 40; i += 1) await insertDiff(db, 't1', 'reader', beacon);
    const a = new OutboxRelay({ db, bus, batchSize: 3 });
    const b = new OutboxRelay({ db, bus, batchSize: 3 });
    const [fromA, fromB] = await Promise.all([a.relayAll(), b.relayAll()]);
    expect(fromA + fromB).toBe(40);
    await waitFor(() => seen.length >= 40);
    expect([...seen].sort((x, y) => x - y)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
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
});
