import { describe, expect, it } from 'vitest';
import { sourceRecordLines, splitSourceText } from './source-text-parts.js';

describe('source text parts', () => {
  it('cuts at the part size, never between the halves of a surrogate pair, and joins back exactly', () => {
    expect(splitSourceText('abcdefg', 3)).toEqual(['abc', 'def', 'g']);
    expect(splitSourceText('ab🧾cdef', 3)).toEqual(['ab', '🧾c', 'def']);
    expect(splitSourceText('🧾🧾🧾', 1)).toEqual(['🧾', '🧾', '🧾']);
    expect(splitSourceText('abc', 3)).toEqual(['abc']);
    const text = 'é🧾 ü\n'.repeat(41);
    for (const size of [1, 2, 3, 5, 7]) expect(splitSourceText(text, size).join('')).toBe(text);
  });

  it('writes a whole text on the source line alone, a longer one on source_text lines after it', () => {
    const fields = { tenant: 't', project: 'p', source_id: 's', text: 'abc' };
    expect(sourceRecordLines(fields, 3)).toBe('{"type":"source","tenant":"t","project":"p","source_id":"s","text":"abc"}\n');
    expect(sourceRecordLines({ ...fields, text: 'abcdefg' }, 3).split('\n')).toEqual([
      '{"type":"source","tenant":"t","project":"p","source_id":"s","text":"abc","continuation_lines":2}',
      '{"type":"source_text","tenant":"t","project":"p","source_id":"s","part":1,"text":"def"}',
      '{"type":"source_text","tenant":"t","project":"p","source_id":"s","part":2,"text":"g"}',
      '',
    ]);
  });
});
