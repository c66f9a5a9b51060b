import { describe, expect, it } from 'vitest';
import { loadConfig } from '../core/config.js';
import { embedderConfigFrom } from './configured-embedder.js';

describe('embedderConfigFrom', () => {
  it('builds the default minilm embedder when nothing is configured', () => {
    expect(embedderConfigFrom(loadConfig({}))).toEqual({ kind: 'minilm' });
  });

  it.each([
    [undefined, 'minilm'],
    ['all-minilm-l6-v2-int8', 'minilm'],
    ['use-lite-512', 'use-lite'],
    ['hash-384-v1', 'hash'],
  ] as const)('with nats and a local fallback, workers serving %s fall back to %s', (model, fallback) => {
    const env = { HYPHAE_EMBEDDER: 'nats', HYPHAE_NATS_URL: 'nats://127.0.0.1:4222', HYPHAE_EMBED_LOCAL_FALLBACK: 'true', ...(model ? { HYPHAE_EMBED_MODEL: model } : {}) };
    expect(embedderConfigFrom(loadConfig(env)).fallback).toBe(fallback);
  });
});
