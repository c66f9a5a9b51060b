/**
 * A store that declares relations pays no round trip for them (docs/relations.md, "What a
 * subgraph costs"): the relations are checked and written by the cell's own insert statement, so
 * it sends as many statements as a store declaring none; and the cell's creation is told to a
 * watching beacon once, as `created`, with no second diff for its relations.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../../src/service/index.js';
import type { Db, Queryable } from '../../src/store/db.js';
import { createTestDb, type TestDb } from '../support/test-db.js';

/** The statements sent through `db` (and its transactions) while counting is on. */
function countingDb(db: Db): { db: Db; count<T>(run: () => Promise<T>): Promise<number> } {
  let counting = false;
  let statements = 0;
  const counted = (q: Queryable): Queryable => ({
    query: (sql, params) => {
      if (counting) statements += 1;
      return q.query(sql, params);
    },
  });
  const wrapped: Db = {
    driver: db.driver,
    knn: db.knn,
    query: (sql, params) => counted(db).query(sql, params),
    transaction: (fn, options) => db.transaction((tx) => fn(counted(tx)), options),
    poolStats: () => db.poolStats(),
    close: () => db.close(),
  };
  return {
    db: wrapped,
    async count(run) {
      statements = 0;
      counting = true;
      try {
        await run();
      } finally {
        counting = false;
      }
      return statements;
    },
  };
}

describe('a store declaring relations', () => {
  const embedder = new HashEmbedder();
  let raw: TestDb;
  let counter: ReturnType<typeof countingDb>;
  let facade: ManagedMemoryFacade;
  let writer: Principal;
  let watcher: Principal;
  let serial = 0;
  const note = (): string => {
    serial += 1;
    return `Ledger note ${serial}: shard ${serial * 7919} drains before ${serial * 104729} closes.`;
  };

  beforeAll(async () => {
    raw = await createTestDb({ modelId: embedder.modelId, dimension: embedder.dimension });
    counter = countingDb(raw);
    facade = createMemoryFacade({ db: counter.db, embedder, config: { restatementSimilarity: null, hitFlushIntervalMs: 3_600_000 } });
    const key = (agent: string): Promise<Principal> =>
      facade.keyAdmin.createKey({ tenant: 'statements', agent, default_project: 'p' }).then((created) => facade.authenticate(created.key));
    writer = await key('writer');
    watcher = await key('watcher');
  });
  afterAll(async () => {
    await facade?.close();
  });

  it('sends as many statements as a store declaring none, and writes the relations', async () => {
    const targets: string[] = [];
    // Warm: the first stores fill the facade's caches (scope, quota, beacon presence) on both paths.
    for (let i = 0; i < 4; i += 1) targets.push((await facade.store(writer, { content: note(), cell_type: 'Fact', salience: 0.5 })).node_id);
    await facade.store(writer, { content: note(), cell_type: 'Fact', salience: 0.5, relations: [{ to: targets[0] as string, type: 'answers' }] });
    let related = '';
    const plain = await counter.count(() => facade.store(writer, { content: note(), cell_type: 'Fact', salience: 0.5 }));
    const declaring = await counter.count(async () => {
      const relations = targets.slice(1).map((to, i) => ({ to, type: ['answers', 'depends_on', 'cites'][i] as string }));
      related = (await facade.store(writer, { content: note(), cell_type: 'Fact', salience: 0.5, relations })).node_id;
    });
    expect(declaring).toBe(plain);
    expect((await facade.cellRelations(writer, related)).relations.map((r) => [r.to, r.type]).sort()).toEqual(
      [
        [targets[1], 'answers'],
        [targets[2], 'depends_on'],
        [targets[3], 'cites'],
      ].sort(),
    );
  });

  it('tells a watching beacon of the new cell once, as created', async () => {
    const text = 'Refunds after noon go to the overnight queue of the billing desk.';
    await facade.placeBeacon(watcher, { text, threshold: 0.3, include_own: false });
    const target = (await facade.store(writer, { content: note(), cell_type: 'Fact', salience: 0.5 })).node_id;
    await facade.drainInbox(watcher, { page_size: 100 });
    const stored = (await facade.store(writer, { content: text, cell_type: 'Decision', salience: 0.9, relations: [{ to: target, type: 'answers' }] })).node_id;
    const told = (await facade.drainInbox(watcher, { page_size: 100 })).diffs;
    expect(told.map((d) => [d.op, d.node_id])).toEqual([['created', stored]]);
  });
});
