/**
 * The outbox relay on a native PostgreSQL, where relays on separate pools are truly concurrent
 * sessions: FOR UPDATE SKIP LOCKED, a claim held open, a crash between publish and commit, and a
 * NATS that hangs while the claim holds its row locks.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Diff } from '../../src/core/entities.js';
import { UnavailableError } from '../../src/core/errors.js';
import { LiveDiffFeed } from '../../src/mesh/live-diff-feed.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { NatsBus } from '../../src/mesh/nats-bus.js';
import { OutboxRelay } from '../../src/mesh/outbox-relay.js';
import type { Db } from '../../src/store/db.js';
import { skipWithoutNatsServer, startNatsServer } from '../support/nats-server.js';
import type { NatsServer } from '../support/nats-server.js';
import { insertBeacon, insertDiff, TEST_DIMENSION } from '../support/mesh/mesh-test-db.js';
import { busWaitingOn } from './relay-faults.js';
import { skipWithoutPostgres, startSharedDatabase } from '../support/shared-database.js';
import type { SharedDatabase } from '../support/shared-database.js';
import { waitFor } from '../support/wait-for.js';

const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe.skipIf(skipWithoutPostgres())('OutboxRelay on a native PostgreSQL', () => {
  let database: SharedDatabase;
  let admin: Db;

  beforeAll(async () => {
    database = await startSharedDatabase(TEST_DIMENSION);
    admin = await database.connect(4);
  });
  afterAll(async () => {
    await database?.close();
  });
  beforeEach(async () => {
    await admin.query('DELETE FROM diffs');
    await admin.query('DELETE FROM inboxes');
    await admin.query('DELETE FROM beacons');
  });

  const unpublished = async (): Promise<number> =>
    (await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM diffs WHERE published_at IS NULL')).rows[0]?.n ?? -1;

  it('SKIP LOCKED: while one relay holds its claim open, another publishes everything else without waiting on its locks', async () => {
    const inner = new MemoryBus();
    const seen: string[] = [];
    await inner.subscribe('hyphae.>', (e) => seen.push(e.diff.diff_id));
    for (let i = 0; i < 30; i += 1) await insertDiff(admin, 't1', 'reader', randomUUID());
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let held = false;
    const holder = new OutboxRelay({
      db: await database.connect(1),
      bus: busWaitingOn(inner, async () => {
        held = true;
        await gate;
      }),
      batchSize: 5,
    });
    const other = new OutboxRelay({ db: await database.connect(1), bus: inner, batchSize: 5 });

    const holding = holder.relayBatch();
    await waitFor(() => held);
    let otherDone = false;
    const sweeping = other.relayAll().then((n) => {
      otherDone = true;
      return n;
    });
    // Either the other relay finishes, or it is stuck waiting for a row lock (plain FOR UPDATE would do that).
    const lockWaits = async (): Promise<number> =>
      (await admin.query<{ n: number }>("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock'")).rows[0]?.n ?? 0;
    await waitFor(async () => otherDone || (await lockWaits()) > 0);
    expect(otherDone).toBe(true);
    expect(await sweeping).toBe(25);
    expect(await unpublished()).toBe(5);
    release();
    expect((await holding).published).toBe(5);
    await waitFor(() => seen.length === 30);
    expect(new Set(seen).size).toBe(30);
    expect(await unpublished()).toBe(0);
  });

  it('four relays on four pools sweeping one outbox publish every diff exactly once, each inbox in seq order per relay', async () => {
    const inner = new MemoryBus();
    const byRelay = new Map<number, { agent: string; seq: number }[]>();
    const total = 240;
    const agents = ['a0', 'a1', 'a2', 'a3'];
    for (let i = 0; i < total; i += 1) await insertDiff(admin, 't1', agents[i % 4] ?? 'a0', randomUUID());
    const seen: string[] = [];
    await inner.subscribe('hyphae.>', (e) => seen.push(e.diff.diff_id));
    const relays = await Promise.all(
      range(0, 3).map(async (n) => {
        byRelay.set(n, []);
        const bus = busWaitingOn(inner, async (e) => {
          byRelay.get(n)?.push({ agent: e.recipientAgent, seq: e.diff.seq });
        });
        return new OutboxRelay({ db: await database.connect(2), bus, batchSize: 7 });
      }),
    );
    const counts = await Promise.all(relays.map((relay) => relay.relayAll()));
    expect(counts.reduce((x, y) => x + y, 0)).toBe(total);
    await waitFor(() => seen.length === total);
    expect(new Set(seen).size).toBe(total);
    for (const published of byRelay.values()) {
      for (const agent of agents) {
        const seqs = published.filter((p) => p.agent === agent).map((p) => p.seq);
        expect(seqs).toEqual([...seqs].sort((x, y) => x - y));
      }
    }
    expect(await unpublished()).toBe(0);
  });

  it('a relay that dies between the publish and its commit: the diffs stay unpublished, another relay republishes, a live stream sees each once', async () => {
    const inner = new MemoryBus();
    const beacon = randomUUID();
    await insertBeacon(admin, 't1', 'reader', beacon);
    const raw: number[] = [];
    await inner.subscribe('hyphae.>', (e) => raw.push(e.diff.seq));
    const feed = new LiveDiffFeed({ db: admin, bus: inner, refreshIntervalMs: 600_000 });
    const live: Diff[] = [];
    const stream = await feed.subscribe('t1', 'reader', (diff) => live.push(diff));
    for (let i = 0; i < 6; i += 1) await insertDiff(admin, 't1', 'reader', beacon);

    const name = `relay-${randomUUID().slice(0, 8)}`;
    const doomed = await database.connect(1, name);
    let killed = false;
    const crashing = new OutboxRelay({
      db: doomed,
      // Seqs 1–5 are acknowledged by the bus; at seq 6 the relay's session dies (and the process with it: 6 never leaves).
      bus: busWaitingOn(inner, async (e) => {
        if (e.diff.seq !== 6) return;
        if (!killed) {
          killed = true;
          await admin.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1', [name]);
        }
        throw new UnavailableError('the relay process died');
      }),
    });
    await expect(crashing.relayBatch()).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(await unpublished()).toBe(6);
    await waitFor(() => raw.length === 5);

    const survivor = new OutboxRelay({ db: await database.connect(1), bus: inner });
    expect(await survivor.relayAll()).toBe(6);
    await waitFor(() => raw.length === 11);
    expect(raw).toEqual([...range(1, 5), ...range(1, 6)]);
    await waitFor(() => live.length >= 6);
    expect(live.map((d) => d.seq)).toEqual(range(1, 6));
    expect(await unpublished()).toBe(0);
    await stream.close();
    await feed.close();
  });

  describe.skipIf(skipWithoutNatsServer())('with a real nats-server', () => {
    let nats: NatsServer;
    const buses: NatsBus[] = [];
    beforeAll(async () => {
      nats = await startNatsServer();
    });
    afterAll(async () => {
      await Promise.all(buses.map((bus) => bus.close()));
      await nats?.stop();
    });

    it('a NATS that hangs while the claim holds its row locks: the batch fails on the publish deadline and releases every lock', async () => {
      const bus = await NatsBus.connect({ servers: nats.url, publishTimeoutMs: 500 });
      const observer = await NatsBus.connect({ servers: nats.url });
      buses.push(bus, observer);
      const seen: number[] = [];
      await observer.subscribe('hyphae.>', (e) => seen.push(e.diff.seq));
      for (let i = 0; i < 10; i += 1) await insertDiff(admin, 't1', 'reader', randomUUID());
      const relay = new OutboxRelay({ db: await database.connect(1), bus });

      nats.pause();
      try {
        const result = await relay.relayBatch();
        expect(result.claimed).toBe(10);
        expect(result.published).toBe(0);
        expect(result.failure).toBeInstanceOf(UnavailableError);
        // Still hung: every claimed row can be locked at once by another session, so the claim let go.
        const locked = await admin.transaction(async (tx) =>
          (await tx.query<{ diff_id: string }>('SELECT diff_id FROM diffs FOR UPDATE NOWAIT')).rows.length,
        );
        expect(locked).toBe(10);
        expect(await unpublished()).toBe(10);
      } finally {
        nats.resume();
      }
      await waitFor(async () => {
        await relay.relayAll().catch(() => 0);
        return (await unpublished()) === 0;
      });
      await waitFor(() => seen.length >= 10);
      expect([...new Set(seen)].sort((x, y) => x - y)).toEqual(range(1, 10));
    });
  });
});
