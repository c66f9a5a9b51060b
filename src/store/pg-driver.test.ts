import { describe, expect, it } from 'vitest';
import { startWireProtocolPostgres } from '../../test/support/wire-postgres.js';
import { DatabaseUnavailableError, isUniqueViolation, sqlStateOf } from './errors.js';
import { openPgDb } from './pg-driver.js';

describe('pg driver', () => {
  it('survives the server dropping idle pooled connections and reports the database unavailable', async () => {
    const server = await startWireProtocolPostgres();
    const idleErrors: Error[] = [];
    const db = await openPgDb({ url: server.url, max: 2, acquireTimeoutMs: 2_000, onIdleError: (error) => idleErrors.push(error) });
    try {
      await db.query('SELECT 1');
      expect(db.poolStats()).toMatchObject({ total: 1, idle: 1, waiting: 0, acquireTimeouts: 0 });
      await server.close();
      await expect.poll(() => idleErrors.length).toBeGreaterThan(0);
      const failed = db.query('SELECT 1');
      await expect(failed).rejects.toBeInstanceOf(DatabaseUnavailableError);
      await expect(failed).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      await expect(db.transaction(async (tx) => tx.query('SELECT 1'))).rejects.toMatchObject({ code: 'UNAVAILABLE' });
    } finally {
      await db.close();
      await server.close();
    }
  });

  it('survives the connection of an open transaction dropping between statements', async () => {
    const server = await startWireProtocolPostgres();
    const dropped: Error[] = [];
    const db = await openPgDb({ url: server.url, max: 2, acquireTimeoutMs: 2_000, onIdleError: (error) => dropped.push(error) });
    try {
      const transaction = db.transaction(async (tx) => {
        await tx.query("INSERT INTO tenants (tenant_id) VALUES ('lost')");
        await server.close();
        await expect.poll(() => dropped.length).toBeGreaterThan(0);
        await tx.query('SELECT 1');
      });
      await expect(transaction).rejects.toMatchObject({ code: 'UNAVAILABLE' });
      expect(db.poolStats().total).toBe(0);
    } finally {
      await db.close();
      await server.close();
    }
  });

  it('reports a write refused by a read-only server as unavailable and drops that connection, so the next one can reach the primary', async () => {
    const server = await startWireProtocolPostgres();
    const db = await openPgDb({ url: server.url, max: 2 });
    try {
      // What a standby answers every write with (SQLSTATE 25006), as a demoted primary behind a pooled connection would.
      const refused = db.transaction(async (tx) => {
        await tx.query('SET TRANSACTION READ ONLY');
        await tx.query("INSERT INTO tenants (tenant_id) VALUES ('standby')");
      });
      await expect(refused).rejects.toBeInstanceOf(DatabaseUnavailableError);
      await expect(refused).rejects.toMatchObject({ code: 'UNAVAILABLE', retryAfterSeconds: 1 });
      expect(db.poolStats().total).toBe(0);
      await db.query("INSERT INTO tenants (tenant_id) VALUES ('primary')");
    } finally {
      await db.close();
      await server.close();
    }
  });

  it('passes errors of the transaction function through unchanged and keeps SQL errors with their SQLSTATE', async () => {
    const server = await startWireProtocolPostgres();
    const db = await openPgDb({ url: server.url, max: 2 });
    try {
      const own = new RangeError('mine');
      await expect(db.transaction(async () => Promise.reject(own))).rejects.toBe(own);
      await db.query("INSERT INTO tenants (tenant_id) VALUES ('x')");
      const duplicate = await db.query("INSERT INTO tenants (tenant_id) VALUES ('x')").catch((error: unknown) => error);
      expect(sqlStateOf(duplicate)).toBe('23505');
      expect(isUniqueViolation(duplicate, 'tenants_pkey')).toBe(true);
      expect(isUniqueViolation(duplicate, 'other')).toBe(false);
      expect(db.poolStats().waiting).toBe(0);
    } finally {
      await db.close();
      await server.close();
    }
  });
});
