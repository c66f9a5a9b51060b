/**
 * A whole Hyphae core for tests: a migrated database (PGlite, or pg over the wire protocol), an
 * embedder, the memory facade with a controllable clock, and helpers to mint keys and principals.
 * MCP, REST and service tests all build on it; its API is kept stable.
 */
import type { CreatedApiKey } from '../../src/core/entities.js';
import type { Principal } from '../../src/core/principal.js';
import type { Role } from '../../src/core/cell-types.js';
import { createKeyAdministration, type KeyAdministration } from '../../src/auth/key-administration.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade, type MemoryFacadeDeps } from '../../src/service/create-memory-facade.js';
import type { FacadeConfig } from '../../src/service/facade-config.js';
import type { Db } from '../../src/store/db.js';
import { readFile } from 'node:fs/promises';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import type { Queryable, QueryResult } from '../../src/store/db.js';

export type TestDriver = 'pglite' | 'pg';

// Stand-in until the storage layer's test database helper lands.
async function openTestDatabase(driver: TestDriver, embedder: Embedder): Promise<{ db: Db; close(): Promise<void> }> {
  const pglite = await PGlite.create({ extensions: { vector } });
  for (const file of ['0001_core.sql', '0002_mesh.sql']) {
    const sql = await readFile(new URL(`../../src/store/migrations/${file}`, import.meta.url), 'utf8');
    await pglite.exec(sql.replaceAll('{{EMBEDDING_DIMENSION}}', String(embedder.dimension)));
  }
  const wrap = (target: PGlite | Transaction): Queryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
      const result = await target.query<Row>(sql, [...params]);
      return { rows: result.rows, rowCount: result.affectedRows ?? result.rows.length };
    },
  });
  if (driver === 'pglite') {
    const direct = wrap(pglite);
    const db: Db = {
      driver: 'pglite',
      query: direct.query,
      transaction: (fn) => pglite.transaction((tx) => fn(wrap(tx))),
      poolStats: () => ({ total: 1, idle: 1, waiting: 0 }),
      close: () => pglite.close(),
    };
    return { db, close: () => db.close() };
  }
  const server = new PGLiteSocketServer({ db: pglite, port: 0, host: '127.0.0.1', maxConnections: 20 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  const pool = new pg.Pool({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', max: 8 });
  const pgWrap = (c: pg.Pool | pg.PoolClient): Queryable => ({
    async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
      const result = await c.query(sql, [...params]);
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    },
  });
  const db: Db = {
    driver: 'pg',
    query: pgWrap(pool).query,
    async transaction(fn) {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const value = await fn(pgWrap(client));
        await client.query('COMMIT');
        return value;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        throw error;
      } finally {
        client.release();
      }
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
  return {
    db,
    async close() {
      await pool.end();
      await server.stop();
      await pglite.close();
    },
  };
}

export const TEST_DRIVERS: readonly TestDriver[] = ['pglite', 'pg'];

/** Real time plus an offset that tests move forward (TTLs, energy decay). */
export interface TestClock {
  now(): Date;
  advance(ms: number): void;
}

export interface TestRuntimeOptions {
  readonly driver?: TestDriver;
  readonly embedder?: 'hash' | 'use-lite';
  readonly facade?: Partial<FacadeConfig>;
  readonly diffFeed?: MemoryFacadeDeps['diffFeed'];
  readonly outbox?: MemoryFacadeDeps['outbox'];
  readonly onBeaconsChanged?: MemoryFacadeDeps['onBeaconsChanged'];
  /** Defaults to 0 so a revocation is visible at once in tests. */
  readonly authCacheTtlMs?: number;
}

export interface PrincipalSpec {
  readonly tenant: string;
  readonly agent: string;
  readonly roles?: Role[];
  readonly projects?: string[];
  readonly default_project?: string;
  readonly trust?: number;
}

export interface MintedKey {
  readonly key: string;
  readonly info: CreatedApiKey;
  readonly principal: Principal;
}

export interface TestRuntime {
  readonly driver: TestDriver;
  readonly db: Db;
  readonly embedder: Embedder;
  readonly facade: ManagedMemoryFacade;
  readonly keyAdmin: KeyAdministration;
  readonly clock: TestClock;
  /** Mints a key (default role writer, all projects) and returns the clear key and its principal. */
  mintKey(spec: PrincipalSpec): Promise<MintedKey>;
  principal(spec: PrincipalSpec): Promise<Principal>;
  close(): Promise<void>;
}

export function createTestClock(): TestClock {
  let offset = 0;
  return {
    now: (): Date => new Date(Date.now() + offset),
    advance: (ms: number): void => {
      offset += ms;
    },
  };
}

export async function createTestRuntime(options: TestRuntimeOptions = {}): Promise<TestRuntime> {
  const driver = options.driver ?? 'pglite';
  const embedder = await createEmbedder({ kind: options.embedder ?? 'hash' });
  const database = await openTestDatabase(driver, embedder);
  const clock = createTestClock();
  const facade = createMemoryFacade({
    db: database.db,
    embedder,
    clock: clock.now,
    authCacheTtlMs: options.authCacheTtlMs ?? 0,
    // Tests flush hits explicitly; the timer stays out of their way.
    config: { hitFlushIntervalMs: 3_600_000, ...options.facade },
    ...(options.diffFeed === undefined ? {} : { diffFeed: options.diffFeed }),
    ...(options.outbox === undefined ? {} : { outbox: options.outbox }),
    ...(options.onBeaconsChanged === undefined ? {} : { onBeaconsChanged: options.onBeaconsChanged }),
  });
  const keyAdmin = createKeyAdministration(database.db);
  const mintKey = async (spec: PrincipalSpec): Promise<MintedKey> => {
    const info = await keyAdmin.createKey({ ...spec });
    return { key: info.key, info, principal: await facade.authenticate(info.key) };
  };
  return {
    driver,
    db: database.db,
    embedder,
    facade,
    keyAdmin,
    clock,
    mintKey,
    principal: async (spec) => (await mintKey(spec)).principal,
    async close(): Promise<void> {
      await facade.close();
      await embedder.close();
      await database.close();
    },
  };
}
