import { describe, expect, it } from 'vitest';
import { loadConfig } from '../core/config.js';
import { embedderConfigFrom } from './configured-embedder.js';

describe('embedderConfigFrom', () => {
  it('builds the default minilm embedder when nothing is configured', () => {
    expect(embedderConfigFrom(loadConfig({}))).toEqual({ kind: 'minilm' });
  });

  it('with HYPHAE_EMBED_MODEL unset, keeps minilm int8 for a database made with it in process, not over nats', () => {
    const int8 = 'all-minilm-l6-v2-int8';
    expect(embedderConfigFrom(loadConfig({}), int8)).toEqual({ kind: 'minilm', model: int8 });
    expect(embedderConfigFrom(loadConfig({}), 'all-minilm-l6-v2')).toEqual({ kind: 'minilm' });
    expect(embedderConfigFrom(loadConfig({ HYPHAE_EMBEDDER: 'nats', HYPHAE_NATS_URL: 'nats://127.0.0.1:4222' }), int8).model).toBeUndefined();
    expect(embedderConfigFrom(loadConfig({ HYPHAE_EMBED_MODEL: 'all-minilm-l6-v2' }), int8).model).toBe('all-minilm-l6-v2');
    expect(embedderConfigFrom(loadConfig({ HYPHAE_EMBEDDER: 'hash' }), int8)).toEqual({ kind: 'hash' });
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
