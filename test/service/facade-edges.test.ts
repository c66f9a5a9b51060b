/**
 * Facade behaviour no other test reached: two consolidations of one scene at once
 * (on PGlite and, when installed, native PostgreSQL with real concurrent sessions), deletion
 * clearing a scene's consolidation, background failures reaching onBackgroundError, and an
 * embedder that returns no vector.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Principal } from '../../src/core/principal.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import type { WrittenDiff } from '../../src/mesh/diff-writer.js';
import { createMemoryFacade, type ManagedMemoryFacade, type MemoryFacadeDeps } from '../../src/service/index.js';
import { ExtractiveSceneSummarizer } from '../../src/service/sessions/extractive-scene-summarizer.js';
import type { SceneSummarizer } from '../../src/service/sessions/scene-summarizer.js';
import type { Db } from '../../src/store/db.js';
import { skipWithoutPostgres, startSharedDatabase, type SharedDatabase } from '../support/shared-database.js';
import { waitFor } from '../support/wait-for.js';
import { createTestDb } from '../support/test-db.js';
import { expectCode, freshTenant } from '../support/facade-expectations.js';

interface Harness {
  readonly db: Db;
  readonly embedder: Embedder;
  facade(deps?: Partial<MemoryFacadeDeps>): ManagedMemoryFacade;
  principal(facade: ManagedMemoryFacade, tenant: string, agent: string): Promise<Principal>;
  close(): Promise<void>;
}

async function harness(db: Db, embedder: Embedder, close: () => Promise<void>): Promise<Harness> {
  const keys = createKeyAdministration(db);
  const facades: ManagedMemoryFacade[] = [];
  return {
    db,
    embedder,
    facade(deps = {}): ManagedMemoryFacade {
      const facade = createMemoryFacade({ db, embedder, authCacheTtlMs: 0, ...deps, config: { hitFlushIntervalMs: 3_600_000, ...deps.config } });
      facades.push(facade);
      return facade;
    },
    principal: async (facade, tenant, agent) => facade.authenticate((await keys.createKey({ tenant, agent })).key),
    async close(): Promise<void> {
      for (const facade of facades) await facade.close();
      await close();
    },
  };
}

/** The extractive summarizer, held at the door until `parties` consolidations are inside it. */
function gatedSummarizer(embedder: Embedder, parties: number): SceneSummarizer & { readonly arrived: number } {
  const inner = new ExtractiveSceneSummarizer(embedder, 1_200);
  let arrived = 0;
  let open = (): void => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  return {
    get arrived(): number {
      return arrived;
    },
    async summarize(input) {
      arrived += 1;
      if (arrived === parties) open();
      await gate;
      return inner.summarize(input);
    },
  };
}

type Backend = 'pglite' | 'native PostgreSQL';
const BACKENDS: readonly Backend[] = ['pglite', 'native PostgreSQL'];

describe.each(BACKENDS)('two consolidations of one scene at once on %s', (backend) => {
  const skip = backend === 'native PostgreSQL' && skipWithoutPostgres();
  let h: Harness;
  let shared: SharedDatabase | undefined;

  beforeAll(async () => {
    if (skip) return;
    const embedder = await createEmbedder({ kind: 'hash' });
    if (backend === 'pglite') {
      const db = await createTestDb({ dimension: embedder.dimension });
      h = await harness(db, embedder, async () => {
        await db.close();
        await embedder.close();
      });
    } else {
      shared = await startSharedDatabase(embedder.dimension);
      h = await harness(await shared.connect(8), embedder, async () => {
        await shared?.close();
        await embedder.close();
      });
    }
  }, 120_000);
  afterAll(async () => h?.close());

  it.skipIf(skip)('both callers get the one L1 cell the winner wrote; one diff goes out for it', async () => {
    const summarizer = gatedSummarizer(h.embedder, 2);
    const signalled: WrittenDiff[] = [];
    const facade = h.facade({ summarizer, outbox: { diffsCommitted: (diffs) => signalled.push(...diffs) } });
    const tenant = freshTenant();
    const author = await h.principal(facade, tenant, 'author');
    const watcher = await h.principal(facade, tenant, 'watcher');
    const { scene_id: sceneId } = await facade.openSession(author, { project: 'release' });
    for (const step of ['the release branch was cut', 'the release notes were drafted', 'the release was tagged']) {
      await facade.store(author, { content: step, cell_type: 'Fact', salience: 0.6 });
    }
    await facade.placeBeacon(watcher, { text: 'the release was tagged', include_own: false, threshold: 0.2 });
    const before = signalled.length;

    // Both read the unconsolidated scene before either writes: the gate holds the first until the second arrives.
    const [first, second] = await Promise.all([facade.consolidateScene(author, sceneId), facade.consolidateScene(author, sceneId)]);
    expect(summarizer.arrived).toBe(2);
    expect(second.node_id).toBe(first.node_id);
    const l1 = await facade.listCells(author, { layer: 'L1', scene_id: sceneId, limit: 10 });
    expect(l1.items.map((c) => c.node_id)).toEqual([first.node_id]);
    expect(signalled.slice(before).map((d) => d.diff.node_id)).toEqual([first.node_id]);
  });
});

describe('deletion and consolidation, background errors, an embedder with no vector (PGlite)', () => {
  let h: Harness;

  beforeAll(async () => {
    const embedder = await createEmbedder({ kind: 'hash' });
    const db = await createTestDb({ dimension: embedder.dimension });
    h = await harness(db, embedder, async () => {
      await db.close();
      await embedder.close();
    });
  });
  afterAll(async () => h?.close());

  const consolidatedScene = async (facade: ManagedMemoryFacade, p: Principal): Promise<{ sceneId: string; l1: string }> => {
    const { scene_id: sceneId, session_id: sessionId } = await facade.openSession(p, { project: 'ops' });
    // Texts of this scene's own: the same text again in the project would reinforce the earlier scene's cell instead.
    await facade.store(p, { content: `the disk filled up at noon (scene ${sceneId})`, cell_type: 'Fact', salience: 0.6 });
    await facade.store(p, { content: `old logs were rotated away (scene ${sceneId})`, cell_type: 'Fact', salience: 0.6 });
    await facade.closeSession(p, { session_id: sessionId });
    const l1 = await facade.consolidateScene(p, sceneId);
    expect((await facade.getScene(p, sceneId)).consolidated).toBe(true);
    return { sceneId, l1: l1.node_id };
  };

  it('deleting a scene consolidation (one cell, or forgetting by source) clears the scene state; the next consolidation writes a new one', async () => {
    const facade = h.facade();
    const p = await h.principal(facade, freshTenant(), 'a');
    const one = await consolidatedScene(facade, p);
    await facade.deleteCell(p, one.l1);
    expect(await facade.getScene(p, one.sceneId)).toMatchObject({ consolidated: false });
    const again = await facade.consolidateScene(p, one.sceneId);
    expect(again.node_id).not.toBe(one.l1);
    expect((await facade.getScene(p, one.sceneId)).consolidated).toBe(true);

    const bulk = await consolidatedScene(facade, p);
    expect(await facade.forgetCells(p, { source_ref: bulk.sceneId, source_ref_kind: 'scene', limit: 10 })).toEqual({ deleted: 1, has_more: false });
    expect(await facade.getScene(p, bulk.sceneId)).toMatchObject({ consolidated: false });
    expect((await facade.consolidateScene(p, bulk.sceneId)).node_id).not.toBe(bulk.l1);
  });

  it('a failing background hit flush reaches onBackgroundError, and its hits are written by the next flush', async () => {
    const errors: unknown[] = [];
    const facade = h.facade({ onBackgroundError: (error) => errors.push(error), config: { hitFlushIntervalMs: 20 } });
    const p = await h.principal(facade, freshTenant(), 'a');
    const cell = await facade.store(p, { content: 'the cache hit ratio dropped', cell_type: 'Fact', salience: 0.6 });
    // A real database refusal: no row may change its hit count while this constraint stands.
    await h.db.query(`ALTER TABLE cells ADD CONSTRAINT test_no_hits CHECK (hits = 0) NOT VALID`);
    try {
      await facade.recall(p, { query: 'cache hit ratio', k: 1 });
      await waitFor(() => errors.length > 0);
    } finally {
      await h.db.query(`ALTER TABLE cells DROP CONSTRAINT test_no_hits`);
    }
    expect(errors[0]).toBeInstanceOf(Error);
    await waitFor(async () => (await facade.getCell(p, cell.node_id)).hits === 1);
  });

  it('an embedder that returns no vector: store, recall and place_beacon answer UNAVAILABLE and nothing is stored', async () => {
    const empty: Embedder = { modelId: h.embedder.modelId, dimension: h.embedder.dimension, embed: async () => [], close: async () => undefined };
    const facade = h.facade({ embedder: empty });
    const p = await h.principal(facade, freshTenant(), 'a');
    const refused = await expectCode(facade.store(p, { content: 'never embedded', cell_type: 'Fact', salience: 0.5 }), 'UNAVAILABLE');
    expect(refused.message).toBe('the embedder returned no vector');
    await expectCode(facade.recall(p, { query: 'never', k: 1 }), 'UNAVAILABLE');
    await expectCode(facade.placeBeacon(p, { text: 'never', include_own: false }), 'UNAVAILABLE');
    expect((await facade.listCells(p, { limit: 10 })).items).toEqual([]);
    expect((await facade.listBeacons(p, { limit: 10 })).items).toEqual([]);
  });
});
