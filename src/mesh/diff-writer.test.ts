import { describe, expect, it } from 'vitest';
import { previewOf } from './diff-writer.js';

describe('previewOf', () => {
  it('keeps at most 280 characters and never splits a surrogate pair', () => {
    expect(previewOf('short')).toBe('short');
    expect(previewOf('x'.repeat(300))).toHaveLength(280);
    const emoji = '🍄'.repeat(300);
    expect(Array.from(previewOf(emoji))).toHaveLength(280);
    expect(previewOf(emoji)).toBe('🍄'.repeat(280));
  });
});
