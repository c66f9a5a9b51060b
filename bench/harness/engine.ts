/** The fixture most benches start from: embedded PGlite, migrated for the embedder, a facade and one agent's key. */
import type { Principal } from '../../src/core/principal.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { createMemoryFacade, type FacadeConfig, type ManagedMemoryFacade, type MemoryFacadeDeps } from '../../src/service/index.js';
import { migrate } from '../../src/store/migrator.js';
import { openPgliteDb, type PgliteDb } from '../../src/store/pglite-driver.js';

/** Recall hits are flushed when a bench says so, never by a timer in the middle of a measurement. */
export const QUIET_HITS: Partial<FacadeConfig> = { hitFlushIntervalMs: 3_600_000 };

export interface BenchEngine {
  readonly db: PgliteDb;
  readonly facade: ManagedMemoryFacade;
  readonly key: string;
  readonly principal: Principal;
  close(): Promise<void>;
}

export interface EngineOptions {
  /** Merged over QUIET_HITS. */
  readonly config?: Partial<FacadeConfig>;
  /** The bench agent's key (tenant `bench`, agent `bench` unless named). */
  readonly key?: Readonly<Record<string, unknown>>;
  /** Accepts OAuth access tokens as this configuration says. */
  readonly oauth?: MemoryFacadeDeps['oauth'];
  /** Source ingestion's limits and timing (e.g. every source embedded within the call). */
  readonly sources?: MemoryFacadeDeps['sources'];
  /** Runs on the migrated database before the facade is built (e.g. BENCH_HNSW). */
  readonly prepare?: (db: PgliteDb) => Promise<void>;
}

/** A migrated, empty PGlite with a facade over it and the bench agent authenticated. */
export async function openEngine(embedder: Embedder, options: EngineOptions = {}): Promise<BenchEngine> {
  const db = await openPgliteDb({});
  try {
    await migrate(db, { modelId: embedder.modelId, dimension: embedder.dimension });
    await options.prepare?.(db);
    const facade = createMemoryFacade({
      db,
      embedder,
      config: { ...QUIET_HITS, ...options.config },
      ...(options.oauth === undefined ? {} : { oauth: options.oauth }),
      ...(options.sources === undefined ? {} : { sources: options.sources }),
    });
    const { key } = await facade.keyAdmin.createKey({ tenant: 'bench', agent: 'bench', ...options.key });
    const principal = await facade.authenticate(key);
    return {
      db,
      facade,
      key,
      principal,
      async close(): Promise<void> {
        await facade.close();
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
