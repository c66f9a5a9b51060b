/**
 * A whole Hyphae core for tests, wired by the composition root's own parts (src/app: the embedder
 * and the facade built from a configuration, torn down in reverse): a migrated database (PGlite, or
 * pg over the wire protocol), an embedder, the memory facade with a controllable clock, and helpers
 * to mint keys and principals. MCP, REST and service tests all build on it; its API is kept stable.
 */
import { createConfiguredEmbedder, createConfiguredFacade } from '../../src/app/index.js';
import { Teardown } from '../../src/app/teardown.js';
import type { KeyAdministration } from '../../src/auth/key-administration.js';
import type { Role } from '../../src/core/cell-types.js';
import { loadConfig } from '../../src/core/config.js';
import type { CreatedApiKey } from '../../src/core/entities.js';
import type { OAuthConfig } from '../../src/core/oauth-config.js';
import type { Principal } from '../../src/core/principal.js';
import type { Embedder } from '../../src/embed/embedder.js';
import type { ManagedMemoryFacade, MemoryFacadeDeps } from '../../src/service/index.js';
import type { FacadeConfig } from '../../src/service/facade-config.js';
import type { Db } from '../../src/store/db.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { createTestDb } from './test-db.js';
import { startWireProtocolPostgres } from './wire-postgres.js';

export type TestDriver = 'pglite' | 'pg';

/** A template-cloned database migrated for this embedder, reached in-process or over the wire protocol. */
async function openTestDatabase(driver: TestDriver, embedder: Embedder): Promise<{ db: Db; close(): Promise<void> }> {
  const identity = { modelId: embedder.modelId, dimension: embedder.dimension };
  if (driver === 'pglite') {
    const db = await createTestDb(identity);
    return { db, close: () => db.close() };
  }
  const server = await startWireProtocolPostgres(identity);
  try {
    const db = await openPgDb({ url: server.url, max: 8 });
    return {
      db,
      async close(): Promise<void> {
        try {
          await db.close();
        } finally {
          await server.close();
        }
      },
    };
  } catch (error) {
    await server.close();
    throw error;
  }
}

export const TEST_DRIVERS: readonly TestDriver[] = ['pglite', 'pg'];

/** Real time plus an offset that tests move forward (TTLs, energy decay). */
export interface TestClock {
  now(): Date;
  advance(ms: number): void;
}

export interface TestRuntimeOptions {
  readonly driver?: TestDriver;
  readonly embedder?: 'hash' | 'use-lite' | 'minilm';
  readonly facade?: Partial<FacadeConfig>;
  readonly diffFeed?: MemoryFacadeDeps['diffFeed'];
  readonly outbox?: MemoryFacadeDeps['outbox'];
  readonly onBeaconsChanged?: MemoryFacadeDeps['onBeaconsChanged'];
  /** Defaults to 0 so a revocation is visible at once in tests. */
  readonly authCacheTtlMs?: number;
  /** Accept OAuth access tokens (test/support/authorization-server.ts issues them). */
  readonly oauth?: OAuthConfig;
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
  // The configuration a user's process starts with, but for the embedder (and OAuth) a test picks.
  const config = { ...loadConfig({ HYPHAE_EMBEDDER: options.embedder ?? 'hash' }), oauth: options.oauth };
  const teardown = new Teardown();
  try {
    const embedder = await createConfiguredEmbedder(config);
    teardown.add(() => embedder.close());
    const database = await openTestDatabase(driver, embedder);
    teardown.add(() => database.close());
    const clock = createTestClock();
    const facade = createConfiguredFacade({
      db: database.db,
      embedder,
      config,
      clock: clock.now,
      hooks: {
        ...(options.diffFeed === undefined ? {} : { diffFeed: options.diffFeed }),
        ...(options.outbox === undefined ? {} : { outbox: options.outbox }),
        ...(options.onBeaconsChanged === undefined ? {} : { onBeaconsChanged: options.onBeaconsChanged }),
      },
      authCacheTtlMs: options.authCacheTtlMs ?? 0,
      // Tests flush hits explicitly; the timer stays out of their way.
      facade: { hitFlushIntervalMs: 3_600_000, ...options.facade },
    });
    teardown.add(() => facade.close());
    const keyAdmin = facade.keyAdmin;
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
      close: () => teardown.run(),
    };
  } catch (error) {
    await teardown.abandon();
    throw error;
  }
}
