import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../src/core/errors.js';
import { NatsBus } from '../../src/mesh/nats-bus.js';
import { OutboxRelay } from '../../src/mesh/outbox-relay.js';
import type { Db } from '../../src/store/db.js';
import { skipWithoutNatsServer, startNatsServer } from '../support/nats-server.js';
import type { NatsServer } from '../support/nats-server.js';
import { createMeshTestDb, insertDiff } from '../support/mesh/mesh-test-db.js';
import { waitFor } from '../support/wait-for.js';

describe.skipIf(skipWithoutNatsServer())('OutboxRelay while NATS goes away and comes back', () => {
  let nats: NatsServer;
  let db: Db;
  const buses: NatsBus[] = [];

  beforeAll(async () => {
    nats = await startNatsServer();
    db = await createMeshTestDb();
  });
  afterAll(async () => {
    await Promise.all(buses.map((bus) => bus.close()));
    await db?.close();
    await nats?.stop();
  });

  const unpublished = async (): Promise<number> =>
    (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM diffs WHERE published_at IS NULL')).rows[0]?.n ?? -1;

  it('keeps unacknowledged diffs unpublished, backs off, and drains them on reconnection', async () => {
    const bus = await NatsBus.connect({ servers: nats.url, reconnectTimeWaitMs: 100 });
    buses.push(bus);
    const beacon = randomUUID();
    const errors: unknown[] = [];
    const lags: number[] = [];
    const relay = new OutboxRelay({
      db,
      bus,
      pollIntervalMs: 600_000,
      minBackoffMs: 60_000,
      maxBackoffMs: 60_000,
      onError: (error) => errors.push(error),
      metrics: { setOutboxLag: (seconds) => lags.push(seconds), countDiffsDelivered: () => undefined },
    });

    await nats.stop();
    await waitFor(() => !bus.isConnected());
    for (let i = 0; i < 5; i += 1) await insertDiff(db, 't1', 'reader', beacon);
    await expect(relay.relayAll()).rejects.toBeInstanceOf(UnavailableError);
    expect(await unpublished()).toBe(5);

    relay.start();
    await waitFor(() => errors.length > 0);
    expect(await unpublished()).toBe(5);

    // The backoff is long; the reconnection, not a timer, brings the relay back.
    await nats.start();
    // (What subscribers receive in that instant is not promised by core NATS: the live feed's
    // catch-up covers it; see multi-replica.test.ts.)
    await waitFor(async () => (await unpublished()) === 0);
    await waitFor(() => lags.at(-1) === 0);
    await relay.stop();
  });
});
