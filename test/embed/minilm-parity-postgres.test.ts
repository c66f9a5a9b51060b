/**
 * Vector recall parity on native PostgreSQL (its own pgvector build and HNSW index): through the
 * facade, every question of the MiniLM parity fixture ranks first the memory the reference
 * implementation's exact cosine ranking puts first (minilm-parity.test.ts does the same on PGlite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Principal } from '../../src/core/principal.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import { migrate } from '../../src/store/migrator.js';
import { openPgDb } from '../../src/store/pg-driver.js';
import { createDatabase, skipWithoutPostgres, startRealPostgres, type RealPostgres } from '../support/real-postgres.js';
import { loadParityFixture, recallTop1, storeMemories, type ParityFixture } from '../support/minilm-parity-fixture.js';

const skip = skipWithoutPostgres();

describe.skipIf(skip)('minilm vector recall parity on native PostgreSQL', { timeout: 300_000 }, () => {
  let fixture: ParityFixture;
  let server: RealPostgres;
  let db: Db;
  let embedder: Embedder;
  let facade: ManagedMemoryFacade;
  let principal: Principal;
  let indexOf: Map<string, number>;

  beforeAll(async () => {
    fixture = await loadParityFixture();
    server = await startRealPostgres();
    embedder = await createEmbedder({ kind: 'minilm' });
    db = await openPgDb({ url: await createDatabase(server, 'parity'), max: 4 });
    await migrate(db, { modelId: embedder.modelId, dimension: embedder.dimension });
    facade = createMemoryFacade({ db, embedder, authCacheTtlMs: 0, config: { hitFlushIntervalMs: 3_600_000, restatementSimilarity: null } });
    const { key } = await createKeyAdministration(db).createKey({ tenant: 'parity', agent: 'agent', default_project: 'fixture', projects: ['fixture'] });
    principal = await facade.authenticate(key);
    indexOf = await storeMemories(facade, principal, fixture.memories);
  });
  afterAll(async () => {
    await facade?.close();
    await db?.close();
    await embedder?.close();
    await server?.close();
  });

  it("ranks first, for every question, the memory the reference's exact cosine ranking puts first", async () => {
    const firsts = await recallTop1(facade, principal, indexOf, fixture.questions, 'vector');
    const differing = fixture.questions.flatMap((q, i) => (firsts[i] === q.referenceTop1 ? [] : [{ question: q.text, reference: q.referenceTop1, product: firsts[i] }]));
    expect(differing).toEqual([]);
  });
});
