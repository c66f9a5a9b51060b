/**
 * The pg driver against a native PostgreSQL that goes away: stopped, crashed, frozen (SIGSTOP),
 * or stuck on a statement. A call waits for a connection up to its acquire timeout, then fails
 * UNAVAILABLE with a retry hint; a frozen server cannot hold a call past the statement timeout;
 * the pool recovers by itself when the server is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Db } from '../../src/store/db.js';
import { DatabaseUnavailableError, sqlStateOf } from '../../src/store/errors.js';
import { SCHEMA_CHANGE } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { skipWithoutPostgres, startRealPostgres } from '../support/real-postgres.js';
import type { RealPostgres } from '../support/real-postgres.js';

describe.skipIf(skipWithoutPostgres())('pg driver on a native PostgreSQL that fails', () => {
  let server: RealPostgres;
  const pools: Db[] = [];
  const open = async (options: { acquireTimeoutMs: number; statementTimeoutMs?: number }): Promise<Db> => {
    const db = await openPgDb({ url: server.url, max: 4, ...options });
    pools.push(db);
    return db;
  };

  beforeAll(async () => {
    server = await startRealPostgres();
  });

  afterAll(async () => {
    await Promise.all(pools.map((db) => db.close().catch(() => undefined)));
    await server?.close();
  });

  it('a call made while the server is down waits for it and succeeds once it is back', async () => {
    const db = await open({ acquireTimeoutMs: 60_000 });
    await db.query('SELECT 1');
    // A crash: the pooled connection dies with the server, unnoticed until it is used.
    await server.stop('immediate');
    let settled = false;
    const read = db.query<{ answer: number }>('SELECT 42 AS answer');
    const write = db.transaction(async (tx) => tx.query<{ answer: number }>('SELECT 43 AS answer'));
    const outcomes = Promise.allSettled([read, write]).finally(() => {
      settled = true;
    });
    // Still waiting: the server is down, yet neither call failed nor answered.
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(settled).toBe(false);
    await server.start();
    const [readOutcome, writeOutcome] = await outcomes;
    expect(readOutcome).toMatchObject({ status: 'fulfilled', value: { rows: [{ answer: 42 }] } });
    expect(writeOutcome).toMatchObject({ status: 'fulfilled', value: { rows: [{ answer: 43 }] } });
  });

  it('past the acquire timeout a call fails UNAVAILABLE with a retry hint; the pool recovers without being reopened', async () => {
    const db = await open({ acquireTimeoutMs: 300 });
    await db.query('SELECT 1');
    await server.stop('fast');
    const failure = await db.query('SELECT 1').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(DatabaseUnavailableError);
    expect(failure).toMatchObject({ code: 'UNAVAILABLE', retryAfterSeconds: 1, message: 'database unavailable: no connection within 300 ms' });
    await expect(db.transaction(async (tx) => tx.query('SELECT 1'))).rejects.toMatchObject({ code: 'UNAVAILABLE', retryAfterSeconds: 1 });
    // Both give-ups are counted for hyphae_db_acquire_timeouts_total.
    expect(db.poolStats()).toMatchObject({ max: 4, acquireTimeouts: 2 });
    await server.start();
    expect((await db.query<{ n: number }>('SELECT 7 AS n')).rows).toEqual([{ n: 7 }]);
    await db.transaction(async (tx) => tx.query('SELECT 1'));
    expect(db.poolStats().acquireTimeouts).toBe(2);
  });

  it('counts a call that waited past the acquire timeout for a busy pool', async () => {
    const db = await openPgDb({ url: server.url, max: 1, acquireTimeoutMs: 300 });
    pools.push(db);
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    const holder = db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      await held;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(db.poolStats()).toMatchObject({ total: 1, idle: 0, max: 1, acquireTimeouts: 0 });
    await expect(db.query('SELECT 1')).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    expect(db.poolStats().acquireTimeouts).toBe(1);
    release();
    await holder;
    await db.query('SELECT 1');
    expect(db.poolStats().acquireTimeouts).toBe(1);
  });

  it('a frozen server fails a call on the statement deadline instead of holding it, and the pool recovers when it thaws', async () => {
    const db = await open({ acquireTimeoutMs: 300, statementTimeoutMs: 300 });
    await db.query('SELECT 1');
    expect(db.poolStats().idle).toBe(1);
    server.pause();
    try {
      // The pooled connection is open but unanswered; a new one would hang in its startup packet.
      await expect(db.query('SELECT 1')).rejects.toMatchObject({ code: 'UNAVAILABLE', message: 'database unavailable: no answer within 600 ms' });
      await expect(db.query('SELECT 1')).rejects.toMatchObject({ code: 'UNAVAILABLE', retryAfterSeconds: 1 });
      await expect(db.transaction(async (tx) => tx.query('SELECT 1'))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      server.resume();
    }
    await expect
      .poll(async () => (await db.query<{ n: number }>('SELECT 1 AS n').catch(() => ({ rows: [] }))).rows, { timeout: 30_000 })
      .toEqual([{ n: 1 }]);
  });

  it('sets statement_timeout on every session: a stuck statement fails UNAVAILABLE and leaves its connection usable; schema changes lift it', async () => {
    const db = await open({ acquireTimeoutMs: 2_000, statementTimeoutMs: 250 });
    expect((await db.query<{ statement_timeout: string }>('SHOW statement_timeout')).rows).toEqual([{ statement_timeout: '250ms' }]);
    expect((await db.query('SHOW idle_in_transaction_session_timeout')).rows).toEqual([{ idle_in_transaction_session_timeout: '1min' }]);
    const stuck = await db.query('SELECT pg_sleep(30)').catch((error: unknown) => error);
    expect(stuck).toMatchObject({ code: 'UNAVAILABLE', message: expect.stringMatching(/^a statement ran past its timeout/) });
    expect(sqlStateOf((stuck as Error).cause)).toBe('57014');
    const inTransaction = db.transaction(async (tx) => tx.query('SELECT pg_sleep(30)'));
    await expect(inTransaction).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    // The sessions survived their timeouts: nothing was discarded.
    expect(db.poolStats().total).toBe(1);
    const lifted = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_sleep(0.5)');
      return tx.query<{ statement_timeout: string }>('SHOW statement_timeout');
    }, SCHEMA_CHANGE);
    expect(lifted.rows).toEqual([{ statement_timeout: '0' }]);
    expect((await db.query<{ statement_timeout: string }>('SHOW statement_timeout')).rows).toEqual([{ statement_timeout: '250ms' }]);
  });
});
