/** One PostgreSQL for several replicas: PGlite served over the wire protocol (the test helper needs vitest). */
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import type { PGLiteSocketHandlerOptions } from '@electric-sql/pglite-socket';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Embedder } from '../../src/embed/embedder.js';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { openPgliteDb } from '../../src/store/pglite-driver.js';
import { WireQueryQueue } from '../../test/support/wire-query-queue.js';

export interface WireDatabase {
  connect(max: number): Promise<Db>;
  close(): Promise<void>;
}

/** A migrated PGlite behind a loopback socket; `connect` opens a pg pool on it. */
export async function startWireDatabase(embedder: Embedder): Promise<WireDatabase> {
  const pglite = await openPgliteDb();
  await migrate(pglite, { modelId: embedder.modelId, dimension: embedder.dimension });
  const queue = new WireQueryQueue(pglite.pglite);
  const handlers = new Set<PGLiteSocketHandler>();
  const server = createServer((socket) => {
    const handler = new PGLiteSocketHandler({ queryQueue: queue as unknown as PGLiteSocketHandlerOptions['queryQueue'], closeOnDetach: true });
    handlers.add(handler);
    void handler.attach(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = `postgresql://postgres:postgres@127.0.0.1:${(server.address() as AddressInfo).port}/postgres?sslmode=disable`;
  const pools: Db[] = [];
  return {
    async connect(max: number): Promise<Db> {
      const db = await openPgDb({ url, max });
      pools.push(db);
      return db;
    },
    async close(): Promise<void> {
      await Promise.all(pools.map((db) => db.close().catch(() => undefined)));
      await Promise.all([...handlers].map((handler) => handler.detach(true)));
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pglite.close();
    },
  };
}
