import { describe, expect, it } from 'vitest';
import { LineSplitter } from './line-splitter.js';

function collect(max = 100): { splitter: LineSplitter; lines: string[]; oversized: () => number } {
  const lines: string[] = [];
  let oversized = 0;
  const splitter = new LineSplitter({ line: (text) => lines.push(text), oversized: () => (oversized += 1) }, max);
  return { splitter, lines, oversized: () => oversized };
}

describe('LineSplitter', () => {
  it('splits across chunks, drops CR and blank lines, flushes the last line at end', () => {
    const { splitter, lines } = collect();
    splitter.push('{"a":1}\r\n{"b"');
    splitter.push(':2}\n\n   \n{"c":3}');
    expect(lines).toEqual(['{"a":1}', '{"b":2}']);
    splitter.end();
    expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  it('reports an oversized line once and resumes after its newline', () => {
    const { splitter, lines, oversized } = collect(10);
    splitter.push('x'.repeat(8));
    splitter.push('y'.repeat(8));
    splitter.push('z'.repeat(50));
    splitter.push('tail\nok\n');
    expect(oversized()).toBe(1);
    expect(lines).toEqual(['ok']);
    splitter.push('0123456789abc\nfine\n');
    expect(oversized()).toBe(2);
    expect(lines).toEqual(['ok', 'fine']);
  });
});
