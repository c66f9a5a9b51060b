/**
 * What the store path remembers between stores (docs/storage.md, the store path): the embedded
 * process keeps each key's current session scope and whether a tenant holds beacons, and every
 * change that moves either must show in the very next store; and a store acknowledged is visible
 * to the next recall, under concurrency, on one replica and across two.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import type { Principal } from '../../src/core/principal.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../../src/service/index.js';
import { skipWithoutPostgres, startSharedDatabase, type SharedDatabase } from '../mesh/shared-database.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { freshTenant } from './service-test-helpers.js';

const AGENTS = 24;

/** Each agent stores a statement of its own and recalls it at once; all agents at the same time. */
async function storeThenRecallConcurrently(writers: readonly ManagedMemoryFacade[], readers: readonly ManagedMemoryFacade[], principals: readonly Principal[]): Promise<void> {
  const outcomes = await Promise.all(
    principals.map(async (principal, i) => {
      const content = `agent ${i} decided to shard the ledger table number ${i} by region ${i * 7}`;
      const stored = await (writers[i % writers.length] as ManagedMemoryFacade).store(principal, { content, cell_type: 'Decision', salience: 0.5 });
      const recalled = await (readers[i % readers.length] as ManagedMemoryFacade).recall(principal, { query: content, k: 3 });
      return { stored: stored.node_id, first: recalled.results[0]?.node_id };
    }),
  );
  for (const outcome of outcomes) expect(outcome.first).toBe(outcome.stored);
}

describe.each(TEST_DRIVERS)('the store path on %s', (driver) => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime({ driver });
  });
  afterAll(async () => rt.close());

  it('a store made before a session opens leaves the next store free to go to that session; a purge of its project sends it back to the default', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a', roles: ['writer', 'admin'], projects: ['home', 'work'], default_project: 'home' });
    expect(await rt.facade.store(p, { content: 'before any session', cell_type: 'Fact', salience: 0.5 })).toMatchObject({ project: 'home', session_id: null });
    const session = await rt.facade.openSession(p, { project: 'work' });
    expect(await rt.facade.store(p, { content: 'inside the session', cell_type: 'Fact', salience: 0.5 })).toMatchObject({
      project: 'work',
      session_id: session.session_id,
      scene_id: session.scene_id,
    });
    await rt.facade.purgeProject(p, { project: 'work' });
    expect(await rt.facade.store(p, { content: 'after the purge', cell_type: 'Fact', salience: 0.5 })).toMatchObject({ project: 'home', session_id: null, scene_id: null });
  });

  it('the first beacon of a tenant that has taken stores without one hears the very next store', async () => {
    const tenant = freshTenant();
    const author = await rt.principal({ tenant, agent: 'author' });
    const watcher = await rt.principal({ tenant, agent: 'watcher' });
    await rt.facade.store(author, { content: 'the billing service keeps invoices in PostgreSQL', cell_type: 'Fact', salience: 0.5 });
    await rt.facade.placeBeacon(watcher, { text: 'rotate the database credentials before the audit', threshold: 0.3, include_own: false });
    await rt.facade.store(author, { content: 'rotate the database credentials before the audit on Friday', cell_type: 'Task', salience: 0.9 });
    const inbox = await rt.facade.drainInbox(watcher, { page_size: 10 });
    expect(inbox.diffs.map((d) => d.preview)).toEqual(['rotate the database credentials before the audit on Friday']);
  });

  it('every store acknowledged is the first hit of a recall made at once, with many agents storing at the same time', async () => {
    const tenant = freshTenant();
    const principals = await Promise.all(Array.from({ length: AGENTS }, (_, i) => rt.principal({ tenant, agent: `agent-${i}` })));
    await storeThenRecallConcurrently([rt.facade], [rt.facade], principals);
  });
});

describe.skipIf(skipWithoutPostgres())('read-your-writes across two replicas (native PostgreSQL)', () => {
  let database: SharedDatabase;
  const facades: ManagedMemoryFacade[] = [];

  beforeAll(async () => {
    const embedder = new HashEmbedder();
    database = await startSharedDatabase(embedder.dimension);
    for (let i = 0; i < 2; i++) facades.push(createMemoryFacade({ db: await database.connect(8), embedder }));
  });
  afterAll(async () => {
    for (const facade of facades) await facade.close();
    await database?.close();
  });

  it('a store acknowledged by one replica is the first hit of a recall made at once on the other, many agents at the same time', async () => {
    const [a, b] = facades as [ManagedMemoryFacade, ManagedMemoryFacade];
    const tenant = freshTenant();
    const principals: Principal[] = [];
    for (let i = 0; i < AGENTS; i++) {
      const key = await a.keyAdmin.createKey({ tenant, agent: `agent-${i}` });
      principals.push(await a.authenticate(key.key));
    }
    await storeThenRecallConcurrently([a, b], [b, a], principals);
  });
});
