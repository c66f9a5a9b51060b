import { describe, expect, it } from 'vitest';
import { DEFAULT_ENERGY_TABLE, computeEnergy, computeReach } from './energy.js';

const now = new Date('2026-06-01T00:00:00Z');
const daysAgo = (days: number): Date => new Date(now.getTime() - days * 86_400_000);

describe('computeEnergy', () => {
  it('is w · (0.5 + salience) for a fresh cell without hits', () => {
    expect(computeEnergy({ cellType: 'Decision', salience: 0.5, hits: 0, reinforcedAt: now }, now)).toBeCloseTo(0.9, 10);
    expect(computeEnergy({ cellType: 'Context', salience: 1, hits: 0, reinforcedAt: now }, now)).toBeCloseTo(0.6, 10);
  });

  it('halves after one half-life of its type', () => {
    const fresh = computeEnergy({ cellType: 'Risk', salience: 0.5, hits: 0, reinforcedAt: now }, now);
    const aged = computeEnergy({ cellType: 'Risk', salience: 0.5, hits: 0, reinforcedAt: daysAgo(30) }, now);
    expect(aged / fresh).toBeCloseTo(0.5, 10);
  });

  it('grows with the logarithm of hits', () => {
    const e = computeEnergy({ cellType: 'Fact', salience: 0.5, hits: 2, reinforcedAt: now }, now);
    expect(e).toBeCloseTo(0.6 * (1 + Math.log(3)), 10);
  });

  it('never exceeds its fresh value for a future reinforcement time', () => {
    const future = new Date(now.getTime() + 86_400_000);
    expect(computeEnergy({ cellType: 'Task', salience: 0.5, hits: 0, reinforcedAt: future }, now)).toBeCloseTo(0.5, 10);
  });
});

describe('computeReach', () => {
  it('is R · salience · w(type)', () => {
    expect(computeReach('Constraint', 1, 0.15)).toBeCloseTo(0.15, 10);
    expect(computeReach('Context', 0.5, 0.15)).toBeCloseTo(0.15 * 0.5 * DEFAULT_ENERGY_TABLE.Context.weight, 10);
    expect(computeReach('Decision', 0, 0.15)).toBe(0);
  });
});
