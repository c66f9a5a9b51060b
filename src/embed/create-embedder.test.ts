import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../core/errors.js';
import { createEmbedder } from './create-embedder.js';
import { HashEmbedder } from './hash-embedder.js';
import { UseLiteEmbedder } from './use-lite-embedder.js';

describe('createEmbedder', () => {
  it('builds the local embedders by kind', async () => {
    expect(await createEmbedder({ kind: 'use-lite' })).toBeInstanceOf(UseLiteEmbedder);
    const hash = await createEmbedder({ kind: 'hash', dimension: 256 });
    expect(hash).toBeInstanceOf(HashEmbedder);
    expect(hash.dimension).toBe(256);
    expect(hash.modelId).toBe('hash-256-v1');
  });

  it('refuses an unknown kind with a typed error', async () => {
    await expect(createEmbedder({ kind: 'onnx' as never })).rejects.toBeInstanceOf(InvalidArgumentError);
  });
});
