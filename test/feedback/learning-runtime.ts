/**
 * Two memory facades over one database, one learning from ground truth and one not, and ground
 * truth sent as agents send it (a recall, then feedback on its request_id): PGlite in-process or a
 * throwaway native PostgreSQL.
 */
import { createConfiguredEmbedder, createConfiguredFacade } from '../../src/app/index.js';
import { Teardown } from '../../src/app/teardown.js';
import { loadConfig } from '../../src/core/config.js';
import type { Principal } from '../../src/core/principal.js';
import type { Embedder } from '../../src/embed/embedder.js';
import type { ManagedMemoryFacade } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { applyMigrations } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { startRealPostgres } from '../support/real-postgres.js';
import { recording } from '../support/recording-db.js';
import { createTestDb } from '../support/test-db.js';

export type LearningBackend = 'pglite' | 'native';

export interface LearningRuntime {
  readonly db: Db;
  readonly embedder: Embedder;
  /** Recall reads learnt evidence. */
  readonly learning: ManagedMemoryFacade;
  /** The same database, learning off. */
  readonly plain: ManagedMemoryFacade;
  /** The text of every statement the facades ran, when opened with { record: true }. */
  readonly statements: string[];
  principal(tenant: string, agent: string, trust?: number): Promise<Principal>;
  /** `sender` recalls `query` through `facade` (default: the learning one) and sends feedback on it naming `truth` true. */
  judge(sender: Principal, query: string, truth: readonly string[], facade?: ManagedMemoryFacade): Promise<void>;
  close(): Promise<void>;
}

async function openDatabase(backend: LearningBackend, embedder: Embedder, teardown: Teardown): Promise<Db> {
  const identity = { modelId: embedder.modelId, dimension: embedder.dimension };
  if (backend === 'pglite') {
    const db = await createTestDb(identity);
    teardown.add(() => db.close());
    return db;
  }
  const server = await startRealPostgres();
  teardown.add(() => server.close());
  const db = await openPgDb({ url: server.url, max: 4 });
  teardown.add(() => db.close());
  await applyMigrations(db, identity);
  return db;
}

export async function openLearningRuntime(backend: LearningBackend, embedderKind: 'hash' | 'minilm' | 'use-lite' = 'hash', options: { readonly record?: boolean } = {}): Promise<LearningRuntime> {
  const config = loadConfig({ HYPHAE_EMBEDDER: embedderKind });
  const teardown = new Teardown();
  try {
    const embedder = await createConfiguredEmbedder(config);
    teardown.add(() => embedder.close());
    const db = await openDatabase(backend, embedder, teardown);
    const recorded = recording(db);
    const facadeDb = options.record === true ? recorded.db : db;
    const facade = (feedbackLearning: boolean): ManagedMemoryFacade => {
      const made = createConfiguredFacade({ db: facadeDb, embedder, config, clock: () => new Date(), authCacheTtlMs: 0, facade: { hitFlushIntervalMs: 3_600_000, feedbackLearning } });
      teardown.add(() => made.close());
      return made;
    };
    const learning = facade(true);
    const plain = facade(false);
    return {
      db,
      embedder,
      learning,
      plain,
      statements: recorded.statements,
      async principal(tenant, agent, trust): Promise<Principal> {
        const key = await learning.keyAdmin.createKey({ tenant, agent, ...(trust === undefined ? {} : { trust }) });
        return learning.authenticate(key.key);
      },
      async judge(sender, query, truth, through = learning): Promise<void> {
        const { request_id } = await through.recall(sender, { query, k: 5 });
        await through.submitFeedback(sender, { request_id, ground_truth_ids: [...truth] });
      },
      close: () => teardown.run(),
    };
  } catch (error) {
    await teardown.abandon();
    throw error;
  }
}
