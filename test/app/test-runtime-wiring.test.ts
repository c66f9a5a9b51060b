import { describe, expect, it } from 'vitest';
import { openHyphaeApp } from '../../src/app/index.js';
import { loadConfig } from '../../src/core/config.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import { createTestDb } from '../support/test-db.js';
import { createTestRuntime } from '../support/test-runtime.js';

describe('the test runtime (test/support/test-runtime.ts)', () => {
  it('gives its facade the configuration openHyphaeApp gives a process started with no setting, but the hit timer tests flush by hand', async () => {
    const runtime = await createTestRuntime();
    const embedder = await createEmbedder({ kind: 'hash' });
    const app = await openHyphaeApp(loadConfig({ HYPHAE_EMBEDDER: 'hash' }), {
      command: 'wiring test',
      onBackgroundError: () => undefined,
      parts: { db: await createTestDb({ modelId: embedder.modelId, dimension: embedder.dimension }), embedder, facade: { hitFlushIntervalMs: 3_600_000 } },
    });
    try {
      expect(runtime.facade.config).toEqual(app.facade.config);
      expect(runtime.embedder.modelId).toBe(app.embedder.modelId);
    } finally {
      await app.close();
      await runtime.close();
    }
  });
});
