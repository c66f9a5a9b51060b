import { describe, expect, it } from 'vitest';
import { InvalidArgumentError, TooLargeError } from '../../core/errors.js';
import { storeInputSchema } from '../../core/schemas.js';
import { checkStoreLimits, parseInput, parseUuid } from './input-validation.js';

function issuesOf(fn: () => unknown): string[] {
  try {
    fn();
  } catch (error) {
    if (error instanceof InvalidArgumentError) return error.issues.map((i) => i.path);
    throw error;
  }
  throw new Error('expected an InvalidArgumentError');
}

describe('input validation', () => {
  it('names every unknown field, each on its own', () => {
    expect(issuesOf(() => parseInput(storeInputSchema, { content: 'x', cell_type: 'Fact', source_agent: 'm', tenant_id: 't' })).sort()).toEqual([
      'source_agent',
      'tenant_id',
    ]);
  });

  it('names nested fields by path and applies defaults', () => {
    expect(issuesOf(() => parseInput(storeInputSchema, { content: 'x', cell_type: 'Fact', source_ref: { kind: '' } }))).toEqual([
      'source_ref.kind',
      'source_ref.locator',
    ]);
    expect(parseInput(storeInputSchema, { content: 'x', cell_type: 'Fact' }).salience).toBe(0.5);
  });

  it('checks uuids and byte limits', () => {
    expect(issuesOf(() => parseUuid('node_id', 'nope'))).toEqual(['node_id']);
    expect(parseUuid('node_id', '7D1F0A3C-1B1E-4F4E-9A3C-2F1D0A3C1B1E')).toBe('7d1f0a3c-1b1e-4f4e-9a3c-2f1d0a3c1b1e');
    expect(() => checkStoreLimits({ content: '€'.repeat(10_923), cell_type: 'Fact', salience: 0.5 })).toThrow(TooLargeError);
    expect(() => checkStoreLimits({ content: '€'.repeat(10_922), cell_type: 'Fact', salience: 0.5 })).not.toThrow();
  });
});
