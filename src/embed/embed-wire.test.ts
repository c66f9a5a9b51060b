import { describe, expect, it } from 'vitest';
import { decodeVector, embedSubject, encodeVector } from './embed-wire.js';

describe('embed wire format', () => {
  it('round-trips float32 vectors through base64 exactly', () => {
    const vector = Float32Array.from([0.1, -0.25, 1e-7, 3.5, -0]);
    expect(Array.from(decodeVector(encodeVector(vector)))).toEqual(Array.from(vector));
    const view = new Float32Array(new Float32Array([9, 1, 2]).buffer, 4, 2);
    expect(Array.from(decodeVector(encodeVector(view)))).toEqual([1, 2]);
  });

  it('decodes a payload whose length is not a multiple of 4 bytes as an empty (invalid) vector', () => {
    expect(decodeVector(Buffer.from([1, 2, 3]).toString('base64'))).toHaveLength(0);
  });

  it('keys the subject by model id with NATS-reserved characters escaped', () => {
    expect(embedSubject('use-lite-512')).toBe('hyphae.embed.use-lite-512');
    expect(embedSubject('nomic-embed-text:v1.5')).toBe('hyphae.embed.nomic-embed-text:v1%2e5');
  });
});
