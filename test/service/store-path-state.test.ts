/**
 * What the store path remembers between stores (docs/storage.md, the store path): the embedded
 * process keeps each key's current session scope and whether a tenant holds beacons, and every
 * change that moves either must show in the very next store; and a store acknowledged is visible
 * to the next recall, under concurrency, on one replica and across two.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HashEmbedder } from '../../src/embed/hash-embedder.js';
import type { Principal } from '../../src/core/principal.js';
import { createMemoryFacade, fileDumpSource, type ManagedMemoryFacade } from '../../src/service/index.js';
import { skipWithoutPostgres, startSharedDatabase, type SharedDatabase } from '../support/shared-database.js';
import { createTestRuntime, TEST_DRIVERS, type TestRuntime } from '../support/test-runtime.js';
import { freshTenant } from '../support/facade-expectations.js';

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

/** A Hyphae export of `tenant` holding one open session of `agent` in `project` and one beacon of `watcher`. */
function sessionAndBeaconDump(tenant: string, agent: string, project: string, watcher: string, beaconText: string): { text: string; sessionId: string } {
  const at = new Date().toISOString();
  const sceneId = randomUUID();
  const sessionId = randomUUID();
  const lines = [
    { type: 'header', format: 'hyphae-export', version: 1, hyphae_version: '0.1.0', exported_at: at, scope: { tenant, project: null }, embedder: { model_id: 'other', dimension: 3 }, vectors: false },
    { type: 'tenant', tenant, created_at: at },
    { type: 'scene', tenant, scene_id: sceneId, project, title: null, created_by: agent, created_at: at, consolidated_at: null, consolidated_node_id: null },
    { type: 'session', tenant, session_id: sessionId, agent, project, scene_id: sceneId, opened_at: at, closed_at: null },
    { type: 'beacon', tenant, beacon_id: randomUUID(), owner_agent: watcher, owner_projects: ['*'], project: null, text: beaconText, threshold: 0.3, cell_types: null, scene_id: null, include_own: false, expires_at: null, created_at: at },
    { type: 'end', counts: { tenant: 1, key: 0, scene: 1, session: 1, cell: 0, corroboration: 0, beacon: 1, inbox: 0, diff: 0 } },
  ];
  return { text: lines.map((line) => JSON.stringify(line)).join('\n') + '\n', sessionId };
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

  it('a session closed sends the next store back to the default project', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a', projects: ['home', 'work'], default_project: 'home' });
    const session = await rt.facade.openSession(p, { project: 'work' });
    expect(await rt.facade.store(p, { content: 'inside the session', cell_type: 'Fact', salience: 0.5 })).toMatchObject({ project: 'work', session_id: session.session_id });
    await rt.facade.closeSession(p, { session_id: session.session_id });
    expect(await rt.facade.store(p, { content: 'after the session', cell_type: 'Fact', salience: 0.5 })).toMatchObject({ project: 'home', session_id: null, scene_id: null });
  });

  it('an imported open session and beacon take the very next store of a tenant that stored before the import', async () => {
    const tenant = freshTenant();
    const admin = await rt.principal({ tenant, agent: 'a', roles: ['writer', 'admin'], projects: ['*'], default_project: 'home' });
    const watcher = await rt.principal({ tenant, agent: 'watcher' });
    expect(await rt.facade.store(admin, { content: 'the billing service keeps invoices in PostgreSQL', cell_type: 'Fact', salience: 0.5 })).toMatchObject({ project: 'home', session_id: null });
    const dump = sessionAndBeaconDump(tenant, 'a', 'work', 'watcher', 'rotate the database credentials before the audit');
    const dir = await mkdtemp(join(tmpdir(), 'hyphae-store-path-'));
    try {
      await writeFile(join(dir, 'dump.jsonl'), dump.text);
      const summary = await rt.facade.importTenant(admin, fileDumpSource(join(dir, 'dump.jsonl')), { format: 'hyphae' });
      expect(summary.records.session.added).toBe(1);
      expect(summary.records.beacon.added).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    const stored = await rt.facade.store(admin, { content: 'rotate the database credentials before the audit on Friday', cell_type: 'Task', salience: 0.9 });
    expect(stored).toMatchObject({ project: 'work', session_id: dump.sessionId });
    const inbox = await rt.facade.drainInbox(watcher, { page_size: 10 });
    expect(inbox.diffs.map((d) => d.preview)).toEqual(['rotate the database credentials before the audit on Friday']);
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

  it.skipIf(driver !== 'pglite')('embedded, stores made one after the other within one millisecond list newest first', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a' });
    const offset = (): number => rt.clock.now().getTime() - Date.now();
    const before = offset();
    const instant = rt.clock.now().getTime();
    const stored: string[] = [];
    try {
      for (let i = 0; i < 40; i += 1) {
        rt.clock.advance(instant - rt.clock.now().getTime());
        stored.push((await rt.facade.store(p, { content: `listed cell ${i}`, cell_type: 'Fact', salience: 0.5 })).node_id);
      }
    } finally {
      rt.clock.advance(before - offset());
    }
    const listed = await rt.facade.listCells(p, { limit: 50 });
    expect(listed.items.map((cell) => cell.node_id)).toEqual([...stored].reverse());
  });

  it('a cell deleted, forgotten or purged takes its lexical terms with it; the cells left keep theirs', async () => {
    const p = await rt.principal({ tenant: freshTenant(), agent: 'a', roles: ['writer', 'admin'], projects: ['home', 'work'], default_project: 'home' });
    const store = async (content: string, extra: Record<string, unknown> = {}): Promise<string> =>
      (await rt.facade.store(p, { content, cell_type: 'Fact', salience: 0.5, ...extra })).node_id;
    const deleted = await store('the ledger table is sharded by region EU-7');
    const forgotten = await store('the invoice export runs nightly at 02:00', { source_ref: { kind: 'file', locator: 'ops/export.md' } });
    const kept = await store('the checkout API retries payments with exponential backoff');
    const session = await rt.facade.openSession(p, { project: 'work' });
    const purged = await store('the search indexer reads from the read replica');
    await rt.facade.closeSession(p, { session_id: session.session_id });
    const ids = [deleted, forgotten, kept, purged];
    const withTerms = async (): Promise<string[]> =>
      (await rt.db.query<{ node_id: string }>('SELECT node_id::text AS node_id FROM cell_tenant_terms WHERE node_id = ANY($1::uuid[])', [ids])).rows.map((r) => r.node_id).sort();
    expect(await withTerms()).toEqual([...ids].sort());
    await rt.facade.deleteCell(p, deleted);
    expect((await rt.facade.forgetCells(p, { source_ref: 'ops/export.md', limit: 10 })).deleted).toBe(1);
    await rt.facade.purgeProject(p, { project: 'work' });
    expect(await withTerms()).toEqual([kept]);
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
