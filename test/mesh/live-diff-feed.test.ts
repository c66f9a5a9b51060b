import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Diff } from '../../src/core/entities.js';
import { beaconSubject, type BusSubscription, type DiffEnvelope } from '../../src/mesh/bus.js';
import { LiveDiffFeed } from '../../src/mesh/live-diff-feed.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { OutboxRelay } from '../../src/mesh/outbox-relay.js';
import { envelopeFromRow } from '../../src/mesh/diff-row.js';
import { DELIVERY_COLUMNS, type DeliveryRow } from '../../src/store/diff-repository.js';
import type { Db } from '../../src/store/db.js';
import { createMeshTestDb, insertBeacon, insertDiff } from '../support/mesh/mesh-test-db.js';
import { waitFor } from '../support/wait-for.js';

const TENANT = 't1';

/** The in-process bus, counting the subscriptions held on it. */
class CountingBus extends MemoryBus {
  live = 0;
  override async subscribe(subject: string, onMessage: (envelope: DiffEnvelope) => void): Promise<BusSubscription> {
    const subscription = await super.subscribe(subject, onMessage);
    this.live += 1;
    let open = true;
    return {
      unsubscribe: async (): Promise<void> => {
        if (open) this.live -= 1;
        open = false;
        await subscription.unsubscribe();
      },
    };
  }
}

describe('LiveDiffFeed on PGlite with the in-process bus', () => {
  let db: Db;
  let bus: MemoryBus;
  let relay: OutboxRelay;
  let feed: LiveDiffFeed;

  beforeAll(async () => {
    db = await createMeshTestDb();
  });
  afterAll(async () => {
    await db.close();
  });
  beforeEach(async () => {
    await feed?.close();
    await db.query('DELETE FROM diffs');
    await db.query('DELETE FROM inboxes');
    await db.query('DELETE FROM beacons');
    bus = new MemoryBus();
    relay = new OutboxRelay({ db, bus });
    // A refresh interval no test waits for: only bus delivery and explicit catch-ups are exercised.
    feed = new LiveDiffFeed({ db, bus, refreshIntervalMs: 600_000 });
  });

  function collector(): { diffs: Diff[]; listener: (diff: Diff) => void } {
    const diffs: Diff[] = [];
    return { diffs, listener: (diff) => diffs.push(diff) };
  }

  it('without afterSeq streams only diffs newer than the inbox head, in seq order', async () => {
    const beacon = randomUUID();
    await insertBeacon(db, TENANT, 'reader', beacon);
    await insertDiff(db, TENANT, 'reader', beacon, 'old');
    await relay.relayAll();
    const { diffs, listener } = collector();
    await feed.subscribe(TENANT, 'reader', listener);
    for (let i = 0; i < 5; i += 1) await insertDiff(db, TENANT, 'reader', beacon, `new ${i}`);
    await insertDiff(db, TENANT, 'someone-else', beacon);
    await relay.relayAll();
    await waitFor(() => diffs.length === 5);
    expect(diffs.map((d) => d.seq)).toEqual([2, 3, 4, 5, 6]);
    expect(diffs.map((d) => d.preview)).toEqual(['new 0', 'new 1', 'new 2', 'new 3', 'new 4']);
  });

  it('a tenant watcher hears every recipient of its tenant, none of another, on the tenant subscription it shares', async () => {
    const beacon = randomUUID();
    await insertBeacon(db, TENANT, 'reader', beacon);
    const heard: string[] = [];
    const watch = await feed.watchTenant(TENANT, (envelope) => heard.push(`${envelope.recipientAgent}:${envelope.diff.preview}`));
    const inbox = collector();
    await feed.subscribe(TENANT, 'reader', inbox.listener);
    expect(feed.busSubscriptions).toBe(1);
    await insertDiff(db, TENANT, 'reader', beacon, 'to reader');
    await insertDiff(db, TENANT, 'writer', beacon, 'to writer');
    await insertDiff(db, 'another-tenant', 'reader', beacon, 'elsewhere');
    await relay.relayAll();
    await waitFor(() => heard.length === 2 && inbox.diffs.length === 1);
    expect(heard.sort()).toEqual(['reader:to reader', 'writer:to writer']);
    await watch.close();
    await insertDiff(db, TENANT, 'writer', beacon, 'after close');
    await insertDiff(db, TENANT, 'reader', beacon, 'reader again');
    await relay.relayAll();
    await waitFor(() => inbox.diffs.length === 2);
    expect(heard).toHaveLength(2);
    await feed.close();
    expect(feed.busSubscriptions).toBe(0);
  });

  it('with afterSeq first catches up from PostgreSQL, then goes live', async () => {
    const beacon = randomUUID();
    await insertBeacon(db, TENANT, 'reader', beacon);
    for (let i = 0; i < 4; i += 1) await insertDiff(db, TENANT, 'reader', beacon);
    const { diffs, listener } = collector();
    await feed.subscribe(TENANT, 'reader', listener, 1);
    expect(diffs.map((d) => d.seq)).toEqual([2, 3, 4]);
    await insertDiff(db, TENANT, 'reader', beacon);
    await relay.relayAll();
    await waitFor(() => diffs.length === 4);
    expect(diffs.map((d) => d.seq)).toEqual([2, 3, 4, 5]);
  });

  it('a stream that reconnects with its last seq gets what it missed while away — already published on the bus — then live, once each', async () => {
    const beacon = randomUUID();
    await insertBeacon(db, TENANT, 'reader', beacon);
    // A second stream of the same inbox stays open throughout, so the tenant's bus subscription does too.
    const steady = collector();
    await feed.subscribe(TENANT, 'reader', steady.listener);
    const first = collector();
    const connection = await feed.subscribe(TENANT, 'reader', first.listener);
    for (let i = 0; i < 3; i += 1) await insertDiff(db, TENANT, 'reader', beacon, `before ${i}`);
    await relay.relayAll();
    await waitFor(() => first.diffs.length === 3);
    await connection.close();

    for (let i = 0; i < 4; i += 1) await insertDiff(db, TENANT, 'reader', beacon, `while away ${i}`);
    await relay.relayAll();
    await waitFor(() => steady.diffs.length === 7);
    expect(first.diffs).toHaveLength(3);

    const again = collector();
    await feed.subscribe(TENANT, 'reader', again.listener, first.diffs.at(-1)?.seq);
    expect(again.diffs.map((d) => d.preview)).toEqual(['while away 0', 'while away 1', 'while away 2', 'while away 3']);
    await insertDiff(db, TENANT, 'reader', beacon, 'after');
    await relay.relayAll();
    await waitFor(() => again.diffs.length === 5 && steady.diffs.length === 8);
    expect([...first.diffs, ...again.diffs].map((d) => d.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(steady.diffs.map((d) => d.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('reports the push delay of each diff written after its stream opened, never of a resume backlog', async () => {
    const delays: number[] = [];
    const metered = new LiveDiffFeed({ db, bus, refreshIntervalMs: 600_000, metrics: { observeDiffPushDelay: (seconds) => delays.push(seconds) } });
    const beacon = randomUUID();
    await insertBeacon(db, TENANT, 'reader', beacon);
    // Written an hour ago: a resume's backlog, delivered but not a push.
    await insertDiff(db, TENANT, 'reader', beacon, 'while away');
    await db.query(`UPDATE diffs SET created_at = now() - interval '1 hour'`);
    const { diffs, listener } = collector();
    try {
      await metered.subscribe(TENANT, 'reader', listener, 0);
      await waitFor(() => diffs.length === 1);
      expect(delays).toEqual([]);
      await insertDiff(db, TENANT, 'reader', beacon, 'pushed');
      await relay.relayAll();
      await waitFor(() => diffs.length === 2);
      expect(delays).toHaveLength(1);
      expect(delays[0]).toBeGreaterThanOrEqual(0);
      expect(delays[0]).toBeLessThan(3_600);
    } finally {
      await metered.close();
    }
  });

  it('drops republished diffs (seq at or below the last delivered)', async () => {
    const beacon = randomUUID();
    await insertBeacon(db, TENANT, 'reader', beacon);
    const { diffs, listener } = collector();
    await feed.subscribe(TENANT, 'reader', listener);
    for (let i = 0; i < 3; i += 1) await insertDiff(db, TENANT, 'reader', beacon);
    await relay.relayAll();
    await db.query('UPDATE diffs SET published_at = NULL');
    await relay.relayAll();
    await insertDiff(db, TENANT, 'reader', beacon);
    await relay.relayAll();
    await waitFor(() => diffs.some((d) => d.seq === 4));
    expect(diffs.map((d) => d.seq)).toEqual([1, 2, 3, 4]);
  });

  it('fills a seq gap from PostgreSQL before delivering what comes after it', async () => {
    const beacon = randomUUID();
    await insertBeacon(db, TENANT, 'reader', beacon);
    const { diffs, listener } = collector();
    await feed.subscribe(TENANT, 'reader', listener);
    await insertDiff(db, TENANT, 'reader', beacon, 'never published');
    await insertDiff(db, TENANT, 'reader', beacon, 'published');
    const { rows } = await db.query<DeliveryRow>(`SELECT ${DELIVERY_COLUMNS} FROM diffs WHERE seq = 2`);
    await bus.publish(beaconSubject(TENANT, beacon), envelopeFromRow(rows[0] as DeliveryRow));
    await waitFor(() => diffs.length === 2);
    expect(diffs.map((d) => [d.seq, d.preview])).toEqual([
      [1, 'never published'],
      [2, 'published'],
    ]);
  });

  it('hears a beacon placed after the stream opened at once, with no announcement and no refresh', async () => {
    const { diffs, listener } = collector();
    await feed.subscribe(TENANT, 'reader', listener);
    const beacon = randomUUID();
    await insertBeacon(db, TENANT, 'reader', beacon);
    await insertDiff(db, TENANT, 'reader', beacon, 'on a new beacon');
    await relay.relayAll();
    await waitFor(() => diffs.length === 1);
    expect(diffs.map((d) => d.preview)).toEqual(['on a new beacon']);
  });

  it('holds one bus subscription per tenant whatever the number of beacons and streams; hands each diff to its recipient\'s streams only', async () => {
    const counting = new CountingBus();
    const countingRelay = new OutboxRelay({ db, bus: counting });
    const countingFeed = new LiveDiffFeed({ db, bus: counting, refreshIntervalMs: 600_000 });
    try {
      const beacons = Array.from({ length: 100 }, () => randomUUID());
      for (const beacon of beacons) await insertBeacon(db, TENANT, 'reader', beacon);
      const readers = Array.from({ length: 50 }, collector);
      const streams = [];
      for (const reader of readers) streams.push(await countingFeed.subscribe(TENANT, 'reader', reader.listener));
      const bystander = collector();
      streams.push(await countingFeed.subscribe(TENANT, 'bystander', bystander.listener));
      const elsewhere = collector();
      streams.push(await countingFeed.subscribe('t2', 'reader', elsewhere.listener));
      expect(counting.live).toBe(2);
      expect(countingFeed.busSubscriptions).toBe(2);
      for (const beacon of beacons.slice(0, 3)) await insertDiff(db, TENANT, 'reader', beacon);
      await countingRelay.relayAll();
      await waitFor(() => readers.every((r) => r.diffs.length === 3));
      expect(readers.map((r) => r.diffs.map((d) => d.seq))).toEqual(readers.map(() => [1, 2, 3]));
      expect(bystander.diffs).toEqual([]);
      expect(elsewhere.diffs).toEqual([]);
      for (const stream of streams.slice(0, 51)) await stream.close();
      expect(counting.live).toBe(1);
      await streams[51]?.close();
      expect(counting.live).toBe(0);
    } finally {
      await countingFeed.close();
      await counting.close();
    }
  });

  it('catches up over more than one page in seq order', async () => {
    const pagedFeed = new LiveDiffFeed({ db, bus, refreshIntervalMs: 600_000, catchUpPageSize: 3 });
    try {
      const beacon = randomUUID();
      await insertBeacon(db, TENANT, 'reader', beacon);
      for (let i = 0; i < 10; i += 1) await insertDiff(db, TENANT, 'reader', beacon, `d${i}`);
      const { diffs, listener } = collector();
      await pagedFeed.subscribe(TENANT, 'reader', listener, 0);
      expect(diffs.map((d) => d.seq)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    } finally {
      await pagedFeed.close();
    }
  });

  it('a throwing listener is reported and neither stops its own stream nor the others of its inbox', async () => {
    const errors: unknown[] = [];
    const reportingFeed = new LiveDiffFeed({ db, bus, refreshIntervalMs: 600_000, onError: (error) => errors.push(error) });
    try {
      const beacon = randomUUID();
      await insertBeacon(db, TENANT, 'reader', beacon);
      const heard: number[] = [];
      await reportingFeed.subscribe(TENANT, 'reader', (diff) => {
        heard.push(diff.seq);
        throw new Error(`listener failed on ${diff.seq}`);
      });
      const witness = collector();
      await reportingFeed.subscribe(TENANT, 'reader', witness.listener);
      for (let i = 0; i < 3; i += 1) await insertDiff(db, TENANT, 'reader', beacon);
      await relay.relayAll();
      await waitFor(() => witness.diffs.length === 3 && heard.length === 3);
      expect(heard).toEqual([1, 2, 3]);
      expect(errors.map((e) => (e as Error).message)).toEqual(['listener failed on 1', 'listener failed on 2', 'listener failed on 3']);
    } finally {
      await reportingFeed.close();
    }
  });

  it('keeps tenants apart: the same agent name in another tenant sees nothing', async () => {
    const beacon = randomUUID();
    await insertBeacon(db, TENANT, 'reader', beacon);
    const { diffs, listener } = collector();
    await feed.subscribe('t2', 'reader', listener, 0);
    await insertDiff(db, TENANT, 'reader', beacon);
    await relay.relayAll();
    const mine = collector();
    await feed.subscribe(TENANT, 'reader', mine.listener, 0);
    await waitFor(() => mine.diffs.length === 1);
    expect(diffs).toEqual([]);
  });

  it('stops delivering once closed', async () => {
    const beacon = randomUUID();
    await insertBeacon(db, TENANT, 'reader', beacon);
    const { diffs, listener } = collector();
    const stream = await feed.subscribe(TENANT, 'reader', listener);
    const witness = collector();
    await feed.subscribe(TENANT, 'reader', witness.listener);
    await stream.close();
    await insertDiff(db, TENANT, 'reader', beacon);
    await relay.relayAll();
    await waitFor(() => witness.diffs.length === 1);
    expect(diffs).toEqual([]);
    expect(feed.openStreams).toBe(1);
  });
});

describe('LiveDiffFeed safety net', () => {
  it('delivers a diff no bus message ever announced, at the next inbox-head check', async () => {
    const db = await createMeshTestDb();
    const bus = new MemoryBus();
    const feed = new LiveDiffFeed({ db, bus, refreshIntervalMs: 50 });
    try {
      const diffs: Diff[] = [];
      await feed.subscribe(TENANT, 'reader', (diff) => diffs.push(diff));
      // A beacon placed elsewhere without an announcement, and its diff never published.
      const beacon = randomUUID();
      await insertBeacon(db, TENANT, 'reader', beacon);
      await insertDiff(db, TENANT, 'reader', beacon, 'silent');
      await waitFor(() => diffs.length === 1);
      expect(diffs[0]?.preview).toBe('silent');
      // Later diffs keep their order, whichever path brings them.
      await insertDiff(db, TENANT, 'reader', beacon, 'on the bus');
      await new OutboxRelay({ db, bus }).relayAll();
      await waitFor(() => diffs.length === 2);
      expect(diffs.map((d) => d.seq)).toEqual([1, 2]);
    } finally {
      await feed.close();
      await db.close();
    }
  });
});
