/**
 * The pg driver sends parameterised statements outside transactions (and inside those that ask) as
 * named prepared statements: parsed once per connection, planned per call as before (force_custom_plan), at most a fixed
 * number of texts, and a statement a schema change made stale is run again on a fresh connection
 * (once: nothing ran the first time) instead of failing the call. Where the server's sessions are
 * not the pool's connections (PGlite over the wire: one session behind every connection), the pool
 * stops preparing at the first refusal and every call still answers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { skipWithoutPostgres, startRealPostgres } from '../support/real-postgres.js';
import type { RealPostgres } from '../support/real-postgres.js';
import { startWireProtocolPostgres } from '../support/wire-postgres.js';

interface PreparedRow {
  statement: string;
  generic_plans: number;
  custom_plans: number;
}

// Read without parameters, so the lookup itself is never prepared.
const PREPARED = 'SELECT statement, generic_plans::int AS generic_plans, custom_plans::int AS custom_plans FROM pg_prepared_statements ORDER BY statement';

describe.skipIf(skipWithoutPostgres())('pg driver prepared statements', () => {
  let server: RealPostgres;
  beforeAll(async () => {
    server = await startRealPostgres();
  });
  afterAll(() => server?.close());

  /** Runs fn on a one-connection pool (pg_prepared_statements is per session), closed after. */
  const withDb = async (preparedStatements: number | undefined, fn: (db: Db) => Promise<void>): Promise<void> => {
    const db = await openPgDb({ url: server.url, max: 1, ...(preparedStatements === undefined ? {} : { preparedStatements }) });
    await fn(db).finally(() => db.close());
  };

  it('a parameterised statement is prepared once on its connection and planned afresh on every call', () => withDb(undefined, async (db) => {
    const text = 'SELECT $1::int + 1 AS n';
    for (const value of [1, 2, 3]) expect((await db.query<{ n: number }>(text, [value])).rows).toEqual([{ n: value + 1 }]);
    expect((await db.query<PreparedRow>(PREPARED)).rows).toEqual([{ statement: text, generic_plans: 0, custom_plans: 3 }]);
    expect((await db.query<{ plan_cache_mode: string }>('SHOW plan_cache_mode')).rows).toEqual([{ plan_cache_mode: 'force_custom_plan' }]);
  }));

  it('statements inside a transaction and statements without parameters stay unnamed; texts past the limit too', () => withDb(1, async (db) => {
    await db.transaction(async (tx) => tx.query('SELECT $1::text AS inside', ['x']));
    await db.query('SELECT 2 AS plain');
    await db.query('SELECT $1::int AS first', [1]);
    await db.query('SELECT $1::int AS second', [2]);
    expect((await db.query<PreparedRow>(PREPARED)).rows.map((row) => row.statement)).toEqual(['SELECT $1::int AS first']);
  }));

  it('a transaction that asks runs its parameterised statements prepared: under a local force_generic_plan, planned once', () => withDb(undefined, async (db) => {
    const text = 'SELECT $1::int + 2 AS n';
    for (const value of [1, 2, 3]) {
      const rows = await db.transaction(async (tx) => {
        await tx.query("SELECT set_config('plan_cache_mode', 'force_generic_plan', true)");
        return (await tx.query<{ n: number }>(text, [value])).rows;
      }, { preparedStatements: true });
      expect(rows).toEqual([{ n: value + 2 }]);
    }
    expect((await db.query<PreparedRow>(PREPARED)).rows).toEqual([{ statement: text, generic_plans: 3, custom_plans: 0 }]);
  }));

  it('a prepared statement refused inside a transaction runs the whole transaction again, once, on a fresh connection', () => withDb(undefined, async (db) => {
    await db.query('CREATE TABLE refused_counter (n int NOT NULL)');
    const text = 'SELECT $1::int AS n';
    let attempts = 0;
    const run = (): Promise<unknown> =>
      db.transaction(async (tx) => {
        attempts += 1;
        await tx.query('INSERT INTO refused_counter VALUES (1)');
        return tx.query(text, [attempts]);
      }, { preparedStatements: true });
    await run();
    expect((await db.query<PreparedRow>(PREPARED)).rows.map((row) => row.statement)).toEqual([text]);
    // The server forgets it behind the pool's back, as a session-sharing pooler would.
    await db.query('DEALLOCATE ALL');
    attempts = 0;
    await run();
    expect(attempts).toBe(2);
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM refused_counter')).rows).toEqual([{ n: 2 }]);
  }));

  it('a statement a schema change made stale answers with the new columns, run exactly once', () => withDb(undefined, async (db) => {
    await db.query('CREATE TABLE stale_counter (id int PRIMARY KEY, hits int NOT NULL)');
    await db.query('INSERT INTO stale_counter VALUES (1, 0)');
    const bump = 'UPDATE stale_counter SET hits = hits + 1 WHERE id = $1 RETURNING *';
    const read = 'SELECT * FROM stale_counter WHERE id = $1';
    expect((await db.query(bump, [1])).rows).toEqual([{ id: 1, hits: 1 }]);
    expect((await db.query(read, [1])).rows).toEqual([{ id: 1, hits: 1 }]);
    await db.query("ALTER TABLE stale_counter ADD COLUMN label text NOT NULL DEFAULT 'new'");
    expect((await db.query(bump, [1])).rows).toEqual([{ id: 1, hits: 2, label: 'new' }]);
    expect((await db.query(read, [1])).rows).toEqual([{ id: 1, hits: 2, label: 'new' }]);
  }));
});

describe('pg driver prepared statements on a server whose one session serves every connection', () => {
  it('stops preparing at the first refusal, and every call answers', async () => {
    const server = await startWireProtocolPostgres();
    const db = await openPgDb({ url: server.url, max: 4 });
    try {
      const text = 'SELECT $1::int * 2 AS doubled';
      const calls = Array.from({ length: 12 }, (_, i) => db.query<{ doubled: number }>(text, [i]));
      const answers = await Promise.all(calls);
      expect(answers.map((answer) => answer.rows[0]?.doubled)).toEqual(Array.from({ length: 12 }, (_, i) => i * 2));
      expect((await db.query<{ doubled: number }>(text, [21])).rows).toEqual([{ doubled: 42 }]);
    } finally {
      await db.close();
      await server.close();
    }
  });
});
