/**
 * A suite run on PGlite and on a throwaway native PostgreSQL (skipped without one), where each test
 * opens databases with the HNSW scan settings it needs — one native database per pool of one
 * connection, so a test's SET holds for every query — loaded as the suite loads them, and every
 * database is closed after the suite.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import type { Db } from '../../src/store/db.js';
import type { KnnSettings } from '../../src/store/knn-session.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { openPgliteDb } from '../../src/store/pglite-driver.js';
import { createDatabase, skipWithoutPostgres, startRealPostgres } from './real-postgres.js';

export type OpenKnnDb = (knn: Partial<KnnSettings>) => Promise<Db>;

export interface KnnDatabases {
  /** A new database with these settings, not loaded (opening it may refuse them). */
  readonly open: OpenKnnDb;
  /** A new database with these settings, loaded. */
  readonly loaded: OpenKnnDb;
}

interface Backend {
  readonly name: string;
  readonly skip: boolean;
  setUp(): Promise<{ open: OpenKnnDb; close(): Promise<void> }>;
}

const BACKENDS: readonly Backend[] = [
  { name: 'PGlite', skip: false, setUp: () => Promise.resolve({ open: (knn) => openPgliteDb({ knn }), close: () => Promise.resolve() }) },
  {
    name: 'native PostgreSQL',
    skip: skipWithoutPostgres(),
    setUp: async () => {
      const server = await startRealPostgres();
      let databases = 0;
      return { open: async (knn) => openPgDb({ url: await createDatabase(server, `knn_${++databases}`), max: 1, knn }), close: () => server.close() };
    },
  },
];

/** `title` on each database kind ("… on PGlite", "… on native PostgreSQL"); `body` registers its hooks and tests, which open databases through what it is given once the suite starts. */
export function describeOnKnnDatabases(title: string, load: (db: Db) => Promise<void>, body: (databases: KnnDatabases) => void): void {
  for (const backend of BACKENDS) {
    describe.skipIf(backend.skip)(`${title} on ${backend.name}`, () => {
      let opening: { open: OpenKnnDb; close(): Promise<void> } | undefined;
      const opened: Db[] = [];
      const open: OpenKnnDb = (knn) => {
        if (opening === undefined) throw new Error('databases open once the suite has started');
        return opening.open(knn);
      };
      const loaded: OpenKnnDb = async (knn) => {
        const db = await open(knn);
        opened.push(db);
        await load(db);
        return db;
      };
      beforeAll(async () => {
        opening = await backend.setUp();
      });
      afterAll(async () => {
        await Promise.all(opened.map((db) => db.close()));
        await opening?.close();
      });
      body({ open, loaded });
    });
  }
}
