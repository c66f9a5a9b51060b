import { describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../core/errors.js';
import { listCellsInputSchema, pullDiffsInputSchema } from '../../core/schemas.js';
import { coerceQuery, parseRequestPart, queryScalarKinds } from './request-validation.js';

describe('query coercion', () => {
  it('converts the numeric and boolean fields the schema declares, and nothing else', () => {
    const kinds = queryScalarKinds(listCellsInputSchema);
    expect([...kinds.entries()].sort()).toEqual([
      ['include_superseded', 'boolean'],
      ['limit', 'integer'],
    ]);
    expect(coerceQuery({ limit: '20', project: '42', include_superseded: 'true' }, kinds)).toEqual({ limit: 20, project: '42', include_superseded: true });
    expect(coerceQuery({ include_superseded: 'yes' }, kinds)).toEqual({ include_superseded: 'yes' });
  });

  it('leaves unconvertible values for the schema to refuse', () => {
    const kinds = queryScalarKinds(listCellsInputSchema);
    const query = coerceQuery({ limit: 'ten' }, kinds);
    expect(() => parseRequestPart(listCellsInputSchema, 'query', query)).toThrow(InvalidArgumentError);
  });
});

describe('parseRequestPart', () => {
  it('returns the parsed output with defaults', () => {
    expect(parseRequestPart(pullDiffsInputSchema, 'query', { since: '2026-01-01T00:00:00Z' })).toEqual({
      since: '2026-01-01T00:00:00Z',
      limit: 100,
    });
  });

  it('reports one issue per field with its path, and refuses unknown fields', () => {
    try {
      parseRequestPart(listCellsInputSchema, 'query', { limit: 0, tenant_id: 'other' });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidArgumentError);
      const paths = (error as InvalidArgumentError).issues.map((issue) => issue.path).sort();
      expect(paths).toEqual(['query', 'query.limit']);
    }
  });
});
