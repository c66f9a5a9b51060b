/**
 * One PostgreSQL (PGlite with pgvector, migrated) served over the wire protocol by pglite-socket,
 * so several replicas — in this process or in child processes — share it through their own pools.
 */
import { readFile } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import pg from 'pg';
import type { Db, QueryResult, Queryable } from '../../src/store/db.js';

export interface SharedDatabase {
  /** postgres://… URL of the socket server. */
  readonly url: string;
  /** A Db over its own pg pool, as one replica would hold. */
  connect(maxConnections?: number): Db;
  close(): Promise<void>;
}

/** With a dimension the schema is created here; without, the database is bare and `hyphae serve` migrates it. */
export async function startSharedDatabase(dimension?: number): Promise<SharedDatabase> {
  const pglite = await PGlite.create({ extensions: { vector } });
  for (const file of dimension === undefined ? [] : ['0001_core.sql', '0002_mesh.sql']) {
    const sql = await readFile(new URL(`../../src/store/migrations/${file}`, import.meta.url), 'utf8');
    await pglite.exec(sql.replaceAll('{{EMBEDDING_DIMENSION}}', String(dimension ?? 0)));
  }
  const server = new PGLiteSocketServer({ db: withBatchAffinity(pglite), port: 0, host: '127.0.0.1', maxConnections: 64 });
  await server.start();
  const port = Number(server.getServerConn().split(':').pop());
  const pools: pg.Pool[] = [];
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    connect(maxConnections = 4): Db {
      const pool = new pg.Pool({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', max: maxConnections });
      pools.push(pool);
      return poolDb(pool);
    },
    async close(): Promise<void> {
      await Promise.all(pools.map((pool) => pool.end().catch(() => undefined)));
      await server.stop();
      await pglite.close();
    },
  };
}

/**
 * pglite-socket keeps one connection's messages together only inside a transaction; between
 * transactions it interleaves connections message by message, so one client's Bind can land
 * between another's Parse and Execute ("portal does not exist"). Reporting "in transaction"
 * until the extended-protocol batch reaches its Sync keeps each batch whole.
 */
function withBatchAffinity(pglite: PGlite): PGlite {
  let midBatch = false;
  return new Proxy(pglite, {
    get(target, property, receiver): unknown {
      if (property === 'isInTransaction') return (): boolean => midBatch || target.isInTransaction();
      if (property === 'execProtocolRawStream') {
        return (message: Uint8Array, ...rest: unknown[]): unknown => {
          const type = String.fromCharCode(message[0] ?? 0);
          midBatch = !(type === 'S' || type === 'Q' || type === 'X');
          return (target.execProtocolRawStream as (...args: unknown[]) => unknown).call(target, message, ...rest);
        };
      }
      if (property === 'exec') {
        return (...args: unknown[]): unknown => {
          midBatch = false;
          return (target.exec as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      const value: unknown = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function wrap(client: pg.Pool | pg.PoolClient): Queryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []): Promise<QueryResult<Row>> {
      const result = await client.query(sql, [...params]);
      return { rows: result.rows as Row[], rowCount: result.rowCount ?? 0 };
    },
  };
}

function poolDb(pool: pg.Pool): Db {
  let ended = false;
  return {
    driver: 'pg',
    query: wrap(pool).query,
    async transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T> {
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        const value = await fn(wrap(client));
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
    async close(): Promise<void> {
      if (ended) return;
      ended = true;
      await pool.end();
    },
  };
}
