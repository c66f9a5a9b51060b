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
    expect([minilm.modelId, minilm.dimension]).toEqual(['all-minilm-l6-v2', 384]);
    const int8 = await createEmbedder({ kind: 'minilm', model: 'all-minilm-l6-v2-int8' });
    expect([int8.modelId, int8.dimension]).toEqual(['all-minilm-l6-v2-int8', 384]);
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

  it('refuses a minilm model it does not run, and a nats fallback of another model than the workers serve', async () => {
    await expect(createEmbedder({ kind: 'minilm', model: 'all-minilm-l6-v2-fp16' })).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', issues: [{ path: 'model' }] });
    await expect(createEmbedder({ kind: 'nats', natsUrl: 'nats://127.0.0.1:9', model: 'all-minilm', fallback: 'minilm' })).rejects.toBeInstanceOf(InvalidArgumentError);
  });

  it('refuses an unknown kind with a typed error', async () => {
    await expect(createEmbedder({ kind: 'onnx' as never })).rejects.toBeInstanceOf(InvalidArgumentError);
  });
});
