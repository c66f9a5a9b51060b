/** `npm run bench -- --against`: figures matched by metric name, medians per side, and the score's direction read from the unit. */
import { describe, expect, it } from 'vitest';
import { compareRuns, directionOf } from '../../bench/harness/against-compare.js';
import { selectSections } from '../../bench/sections.js';

describe('before/after comparison of bench results', () => {
  it('turns after ÷ before so that a score above 1 is better, whichever way the unit improves', () => {
    const before = [[{ metric: 'rate', value: 100, unit: 'calls/s' }, { metric: 'p50', value: 2, unit: 'ms', ratio: 1.5 }]];
    const after = [[{ metric: 'rate', value: 90, unit: 'calls/s' }, { metric: 'p50', value: 1, unit: 'ms', ratio: 1.2 }]];
    const [rate, p50] = compareRuns(before, after);
    expect(rate).toMatchObject({ metric: 'rate', before: 100, after: 90, change: 0.9, score: 0.9 });
    expect(p50).toMatchObject({ metric: 'p50', change: 0.5, score: 2, ratioBefore: 1.5, ratioAfter: 1.2 });
  });

  it('takes the median of the rounds and leaves a metric one side lacks without a score', () => {
    const before = [[{ metric: 'm', value: 1, unit: 'ms' }], [{ metric: 'm', value: 9, unit: 'ms' }], [{ metric: 'm', value: 3, unit: 'ms' }]];
    const after = [[{ metric: 'm', value: 3, unit: 'ms' }, { metric: 'new', value: 1, unit: 'ms' }]];
    const [m, added] = compareRuns(before, after);
    expect(m).toMatchObject({ before: 3, after: 3, change: 1, score: 1 });
    expect(added).toEqual({ metric: 'new', unit: 'ms', after: 1 });
  });

  it('gives no direction to a unit it cannot read', () => {
    expect(directionOf('settings')).toBe('unknown');
    expect(compareRuns([[{ metric: 'x', value: 2, unit: 'settings' }]], [[{ metric: 'x', value: 4, unit: 'settings' }]])[0]).not.toHaveProperty('score');
    expect([directionOf('of 165'), directionOf('fraction'), directionOf('µs'), directionOf('ms/s')]).toEqual(['higher', 'higher', 'lower', 'lower']);
  });

  it('expands the issue names to sections and refuses an unknown one', () => {
    expect(selectSections(['store', 'protocol', 'push']).map((s) => s.name)).toEqual(['store', 'rest', 'mcp', 'grpc', 'mesh', 'channel']);
    expect(() => selectSections(['nope'])).toThrow(/unknown bench section nope/);
  });
});
