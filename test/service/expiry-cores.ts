/**
 * The cores an expiry test runs on: a test runtime per driver (PGlite in-process, or over the wire
 * protocol) and native PostgreSQL when it is installed, each with a facade and a way to mint principals.
 */
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Role } from '../../src/core/cell-types.js';
import type { Principal } from '../../src/core/principal.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { skipWithoutPostgres, startSharedDatabase, type SharedDatabase } from '../support/shared-database.js';
import { createTestRuntime, type TestDriver, type TestRuntime } from '../support/test-runtime.js';

export interface ExpiryCore {
  readonly db: Db;
  readonly facade: ManagedMemoryFacade;
  /** A principal of a fresh key (default roles writer and reader, every project). */
  principal(tenant: string, agent: string, roles?: Role[]): Promise<Principal>;
}

/** `title` on each driver and on native PostgreSQL: one `it` that runs `check` on that core. */
export function onEveryDatabase(title: string, drivers: readonly TestDriver[], name: string, check: (core: ExpiryCore) => Promise<void>): void {
  describe.each(drivers)(`${title} on %s`, (driver) => {
    let rt: TestRuntime;
    beforeAll(async () => {
      rt = await createTestRuntime({ driver });
    });
    afterAll(async () => rt.close());

    it(name, async () => {
      await check({ db: rt.db, facade: rt.facade, principal: (tenant, agent, roles = ['writer', 'reader']) => rt.principal({ tenant, agent, roles }) });
    });
  });

  describe.skipIf(skipWithoutPostgres())(`${title} on native PostgreSQL`, () => {
    let database: SharedDatabase;
    let core: ExpiryCore;
    beforeAll(async () => {
      database = await startSharedDatabase(64);
      const db = await database.connect(4);
      const facade = createMemoryFacade({ db, embedder: new HashEmbedder({ dimension: 64 }) });
      core = {
        db,
        facade,
        principal: async (tenant, agent, roles = ['writer', 'reader']) => facade.authenticate((await facade.keyAdmin.createKey({ tenant, agent, roles })).key),
      };
    });
    afterAll(async () => {
      await core?.facade.close();
      await database?.close();
    });

    it(name, async () => {
      await check(core);
    });
  });
}
