import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import type { PGLiteSocketHandlerOptions } from '@electric-sql/pglite-socket';
import { createServer } from 'node:net';
import type { AddressInfo, Socket } from 'node:net';
import { openPgliteDb } from '../../src/store/pglite-driver.js';
import type { PgliteDb } from '../../src/store/pglite-driver.js';
import { loadTemplate, prepareTestSchema } from './test-db.js';
import type { TestDbOptions } from './test-db.js';
import { WireQueryQueue } from './wire-query-queue.js';

export interface WireProtocolPostgres {
  /** postgresql:// URL of the server on a free loopback port, for openPgDb or any pg client. */
  readonly url: string;
  /** The PGlite behind the server (the database the URL reaches). */
  readonly db: PgliteDb;
  /** Disconnects every client, stops listening, then closes the PGlite. */
  close(): Promise<void>;
}

export interface WireProtocolPostgresOptions extends TestDbOptions {
  /** Concurrent client connections the server accepts; default 20. */
  readonly maxConnections?: number;
}

/**
 * Serves a template-cloned PGlite over the PostgreSQL wire protocol so tests run the `pg` driver.
 * pglite-socket's connection handler speaks the protocol; WireQueryQueue keeps connections'
 * statements and transactions from interleaving on PGlite's single session.
 */
export async function startWireProtocolPostgres(options: WireProtocolPostgresOptions = {}): Promise<WireProtocolPostgres> {
  const db = await openPgliteDb({ loadFrom: await loadTemplate(options) });
  try {
    await prepareTestSchema(db, options);
  } catch (error) {
    await db.close();
    throw error;
  }
  const queue = new WireQueryQueue(db.pglite);
  const handlers = new Set<PGLiteSocketHandler>();
  const server = createServer((socket: Socket) => {
    const handler = new PGLiteSocketHandler({
      // The handler only calls enqueue / clearQueueForHandler / clearTransactionIfNeeded, which WireQueryQueue provides.
      queryQueue: queue as unknown as PGLiteSocketHandlerOptions['queryQueue'],
      closeOnDetach: true,
    });
    handlers.add(handler);
    handler.addEventListener('close', () => handlers.delete(handler));
    handler.addEventListener('error', () => handlers.delete(handler));
    void handler.attach(socket);
  });
  server.maxConnections = options.maxConnections ?? 20;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
    db,
    close(): Promise<void> {
      closing ??= (async (): Promise<void> => {
        try {
          await Promise.all([...handlers].map((handler) => handler.detach(true)));
          await new Promise<void>((resolve) => server.close(() => resolve()));
        } finally {
          await db.close();
        }
      })();
      return closing;
    },
  };
}
