/**
 * A mint decides on the keys its agent holds when it commits (docs/security.md, "Who may administer
 * which keys"): while another transaction gives the agent a key beyond a project admin's reach,
 * the project admin's mint for that agent waits for it, then sees that key and is refused. Real
 * concurrent sessions on native PostgreSQL; the mint is released once PostgreSQL shows it waiting.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashApiKey } from '../../src/auth/api-key.js';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { insertKey, lockAgentKeys } from '../../src/store/key-repository.js';
import { skipWithoutPostgres, startSharedDatabase, type SharedDatabase } from '../support/shared-database.js';
import { expectCode } from '../support/facade-expectations.js';

describe.skipIf(skipWithoutPostgres())('two key changes for one agent at once (native PostgreSQL)', () => {
  let database: SharedDatabase;
  let db: Db;
  let facade: ManagedMemoryFacade;

  beforeAll(async () => {
    database = await startSharedDatabase(8);
    db = await database.connect(4);
    facade = createMemoryFacade({ db, embedder: new HashEmbedder({ dimension: 8 }), authCacheTtlMs: 0 });
  });
  afterAll(async () => {
    await facade?.close();
    await database?.close();
  });

  const waitingAdvisoryLocks = async (): Promise<number> =>
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted`)).rows[0]?.n ?? 0;

  it("a project admin's mint waits for a concurrent wider key of that agent and is then refused", async () => {
    const tenant = `t-${randomUUID()}`;
    const scoped = await facade.authenticate((await facade.keyAdmin.createKey({ tenant, agent: 'p1-admin', roles: ['admin'], projects: ['p1'], trust: 0.8 })).key);

    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    // What a tenant-wide admin's mint of a p2 key for alice does, held open until the other mint waits on it.
    const wider = db.transaction(async (tx) => {
      await lockAgentKeys(tx, tenant, 'alice');
      await insertKey(tx, {
        keyId: randomUUID(),
        tenantId: tenant,
        agent: 'alice',
        roles: ['writer'],
        projects: ['p2'],
        defaultProject: 'p2',
        trust: 0.5,
        keyHashHex: hashApiKey(`hy_${randomUUID()}`),
        keyPrefix: 'hy_race000',
      });
      await released;
    });
    while ((await db.query(`SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND granted`)).rows.length === 0) await new Promise((r) => setImmediate(r));

    const mint = facade.createKey(scoped, { tenant, agent: 'alice', roles: ['writer'], projects: ['p1'], trust: 0.5 });
    const settled = mint.then(
      () => 'minted',
      () => 'refused',
    );
    // Released once PostgreSQL shows the mint waiting on alice's lock, not after any time.
    while ((await waitingAdvisoryLocks()) === 0 && (await Promise.race([settled, Promise.resolve('pending')])) === 'pending') {
      await new Promise((r) => setImmediate(r));
    }
    release();
    await wider;
    const refused = await expectCode(mint, 'FORBIDDEN');
    expect(refused.details).toEqual({ exceeds: 'agent_keys' });
    const aliceKeys = (await facade.keyAdmin.listKeys(tenant)).filter((key) => key.agent === 'alice');
    expect(aliceKeys.map((key) => key.projects)).toEqual([['p2']]);
  });
});
