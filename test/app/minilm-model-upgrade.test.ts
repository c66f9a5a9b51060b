/**
 * The default minilm model became fp32 (`all-minilm-l6-v2`); a database made with the int8 model
 * (`all-minilm-l6-v2-int8`, the default before) keeps it when HYPHAE_EMBED_MODEL is unset, so an
 * upgrade refuses nothing; naming the fp32 model is refused as another model, as before
 * (docs/embeddings.md, "Parity with the reference").
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openHyphaeApp, openMigratedDatabase } from '../../src/app/index.js';
import { loadConfig } from '../../src/core/config.js';
import { migrate, readEmbeddingIdentity } from '../../src/store/migrator.js';
import { openPgliteDb } from '../../src/store/pglite-driver.js';

describe('a database made with minilm int8, opened with the fp32 default', () => {
  let int8Dir: string;
  let freshDir: string;

  beforeAll(async () => {
    [int8Dir, freshDir] = await Promise.all([mkdtemp(join(tmpdir(), 'hyphae-int8-')), mkdtemp(join(tmpdir(), 'hyphae-fp32-'))]);
    const db = await openPgliteDb({ dataDir: int8Dir });
    try {
      await migrate(db, { modelId: 'all-minilm-l6-v2-int8', dimension: 384 });
    } finally {
      await db.close();
    }
  });
  afterAll(async () => {
    await Promise.all([int8Dir, freshDir].map((dir) => rm(dir, { recursive: true, force: true })));
  });

  const options = { command: 'upgrade test', onBackgroundError: (): undefined => undefined };

  it('serves with the int8 model it was made with, and a new database gets fp32', async () => {
    const app = await openHyphaeApp(loadConfig({ HYPHAE_DATA_DIR: int8Dir }), options);
    try {
      expect(app.embedder.modelId).toBe('all-minilm-l6-v2-int8');
      const principal = await app.facade.authenticate((await app.keyAdmin.createKey({ tenant: 't', agent: 'a' })).key);
      const { node_id: nodeId } = await app.facade.store(principal, { content: 'the boiler is serviced every October', cell_type: 'Fact', salience: 0.5 });
      const { results } = await app.facade.recall(principal, { query: 'when is the heating checked?', k: 1, mode: 'vector' });
      expect(results[0]?.node_id).toBe(nodeId);
    } finally {
      await app.close();
    }
    const fresh = await openHyphaeApp(loadConfig({ HYPHAE_DATA_DIR: freshDir }), options);
    try {
      expect(fresh.embedder.modelId).toBe('all-minilm-l6-v2');
      expect(await readEmbeddingIdentity(fresh.db)).toEqual({ modelId: 'all-minilm-l6-v2', dimension: 384 });
    } finally {
      await fresh.close();
    }
  });

  it('hyphae migrate keeps int8 too; naming the fp32 model is refused as another model', async () => {
    const migrated = await openMigratedDatabase(loadConfig({ HYPHAE_DATA_DIR: int8Dir }), 'upgrade test');
    try {
      expect(await readEmbeddingIdentity(migrated.db)).toEqual({ modelId: 'all-minilm-l6-v2-int8', dimension: 384 });
    } finally {
      await migrated.close();
    }
    await expect(openMigratedDatabase(loadConfig({ HYPHAE_DATA_DIR: int8Dir, HYPHAE_EMBED_MODEL: 'all-minilm-l6-v2' }), 'upgrade test')).rejects.toMatchObject({
      name: 'EmbeddingModelMismatchError',
    });
  });
});
