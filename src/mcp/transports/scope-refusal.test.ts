import { describe, expect, it } from 'vitest';
import { roleRefusalIn } from './scope-refusal.js';

describe('roleRefusalIn', () => {
  it('finds a FORBIDDEN for a missing role in a JSON-RPC error', () => {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 3, error: { code: -32002, message: 'this operation needs the writer role', data: { code: 'FORBIDDEN', required_role: 'writer' } } });
    const refusal = roleRefusalIn(body);
    expect(refusal?.code).toBe('FORBIDDEN');
    expect(refusal?.details).toEqual({ required_role: 'writer' });
  });

  it('ignores results, other errors and text that only mentions the marker', () => {
    const other = JSON.stringify({ jsonrpc: '2.0', id: 3, error: { code: -32002, message: 'project x is outside your scope', data: { code: 'FORBIDDEN' } } });
    const result = JSON.stringify({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: '"required_role"' }] } });
    for (const body of [other, result, '{"required_role"', '']) expect(roleRefusalIn(body)).toBeUndefined();
  });
});
