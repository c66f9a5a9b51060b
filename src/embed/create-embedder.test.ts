import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../core/errors.js';
import { createEmbedder } from './create-embedder.js';
import { HashEmbedder } from './hash-embedder.js';
import { MiniLmEmbedder } from './minilm-embedder.js';
import { UseLiteEmbedder } from './use-lite-embedder.js';

describe('createEmbedder', () => {
  it('builds the local embedders by kind', async () => {
    const minilm = await createEmbedder({ kind: 'minilm' });
    expect(minilm).toBeInstanceOf(MiniLmEmbedder);
    expect([minilm.modelId, minilm.dimension]).toEqual(['all-minilm-l6-v2-int8', 384]);
    expect(await createEmbedder({ kind: 'use-lite' })).toBeInstanceOf(UseLiteEmbedder);
    const hash = await createEmbedder({ kind: 'hash', dimension: 256 });
    expect(hash).toBeInstanceOf(HashEmbedder);
    expect(hash.dimension).toBe(256);
    expect(hash.modelId).toBe('hash-256-v1');
  });

  it('refuses incomplete remote settings, naming the missing one', async () => {
    await expect(createEmbedder({ kind: 'nats' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', issues: [{ path: 'natsUrl' }] });
    await expect(createEmbedder({ kind: 'openai', model: 'text-embedding-3-small' })).rejects.toMatchObject({ issues: [{ path: 'url' }] });
    await expect(createEmbedder({ kind: 'openai', url: 'http://127.0.0.1:9/v1' })).rejects.toMatchObject({ issues: [{ path: 'model' }] });
    await expect(createEmbedder({ kind: 'nats', natsUrl: 'nats://127.0.0.1:9', model: 'custom-model' })).rejects.toMatchObject({ issues: [{ path: 'dimension' }] });
    // The workers' default model is minilm, 384-d.
    await expect(createEmbedder({ kind: 'nats', natsUrl: 'nats://127.0.0.1:9', dimension: 512 })).rejects.toMatchObject({ issues: [{ path: 'dimension' }] });
    await expect(createEmbedder({ kind: 'openai', url: 'ftp://example/v1', model: 'text-embedding-3-small' })).rejects.toMatchObject({ issues: [{ path: 'url' }] });
  });

  it('refuses an unknown kind with a typed error', async () => {
    await expect(createEmbedder({ kind: 'onnx' as never })).rejects.toBeInstanceOf(InvalidArgumentError);
  });
});
