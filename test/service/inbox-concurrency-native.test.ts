import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { writeDiffs } from '../../src/mesh/diff-writer.js';
import { drainInbox } from '../../src/mesh/inbox-drain.js';
import { createMemoryFacade } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { skipWithoutPostgres, startSharedDatabase, type SharedDatabase } from '../support/shared-database.js';

describe.skipIf(skipWithoutPostgres())('inbox seqs and drains under real concurrency (native PostgreSQL)', () => {
  let database: SharedDatabase;
  let db: Db;

  beforeAll(async () => {
    database = await startSharedDatabase(8);
    db = await database.connect(16);
  });
  afterAll(async () => {
    await database?.close();
  });

  const change = (tenantId: string, i: number): Parameters<typeof writeDiffs>[2] => ({
    tenantId,
    nodeId: randomUUID(),
    project: 'p',
    cellType: 'Fact',
    salience: 0.5,
    sceneId: null,
    sourceAgent: 'author',
    content: `cell ${i}`,
  });

  it('concurrent writers get gap-free, unique seqs whose timestamps follow seq order', async () => {
    const tenant = `t-${randomUUID()}`;
    // Each store reaches two beacons of "reader" and one of "other": two inboxes locked per
    // transaction, one diff each (one per recipient and cell).
    await Promise.all(
      Array.from({ length: 60 }, (_, i) =>
        db.transaction((tx) =>
          writeDiffs(tx, 'created', change(tenant, i), [
            { beaconId: randomUUID(), ownerAgent: 'reader', similarity: 0.9 },
            { beaconId: randomUUID(), ownerAgent: 'other', similarity: 0.8 },
            { beaconId: randomUUID(), ownerAgent: 'reader', similarity: 0.7 },
          ]),
        ),
      ),
    );
    const { rows } = await db.query<{ seq: string; created_at: Date }>(
      `SELECT d.seq::text AS seq, d.created_at FROM diffs d WHERE d.tenant_id = $1 AND d.recipient_agent = 'reader' ORDER BY d.seq`,
      [tenant],
    );
    expect(rows.map((r) => Number(r.seq))).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
    const { rows: order } = await db.query<{ out_of_order: number }>(
      `SELECT count(*)::int AS out_of_order FROM (
         SELECT created_at <= lag(created_at) OVER (ORDER BY seq) AS bad FROM diffs WHERE tenant_id = $1 AND recipient_agent = 'reader'
       ) s WHERE bad`,
      [tenant],
    );
    expect(order[0]?.out_of_order).toBe(0);
  });

  it('concurrent beacon placements by one agent on 16 connections stop exactly at its quota', async () => {
    const facade = createMemoryFacade({ db, embedder: new HashEmbedder({ dimension: 8 }), config: { maxBeaconsPerAgent: 5 } });
    try {
      const minted = await facade.keyAdmin.createKey({ tenant: `t-${randomUUID()}`, agent: 'reader', roles: ['reader'] });
      const reader = await facade.authenticate(minted.key);
      const results = await Promise.allSettled(
        Array.from({ length: 40 }, (_, i) => facade.placeBeacon(reader, { text: `race ${i}`, include_own: false })),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
      const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM beacons WHERE tenant_id = $1', [reader.tenantId]);
      expect(rows[0]?.n).toBe(5);
    } finally {
      await facade.close();
    }
  });

  it('concurrent drains while writers write: every diff exactly once', async () => {
    const tenant = `t-${randomUUID()}`;
    const total = 80;
    const drained: number[] = [];
    let writersDone = false;
    const writers = (async (): Promise<void> => {
      await Promise.all(
        Array.from({ length: total }, (_, i) =>
          db.transaction((tx) => writeDiffs(tx, 'created', change(tenant, i), [{ beaconId: randomUUID(), ownerAgent: 'reader', similarity: 0.9 }])),
        ),
      );
      writersDone = true;
    })();
    const drainer = async (): Promise<void> => {
      for (;;) {
        const page = await drainInbox(db, tenant, 'reader', 3);
        drained.push(...page.diffs.map((d) => d.seq));
        if (page.diffs.length === 0 && writersDone) return;
      }
    };
    await Promise.all([writers, ...Array.from({ length: 8 }, drainer)]);
    expect([...drained].sort((a, b) => a - b)).toEqual(Array.from({ length: total }, (_, i) => i + 1));
  });
});
