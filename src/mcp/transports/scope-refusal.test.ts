import { describe, expect, it } from 'vitest';
import type { JsonRpcReply } from '../protocol/json-rpc.js';
import { roleRefusalIn } from './scope-refusal.js';

describe('roleRefusalIn', () => {
  it('finds a FORBIDDEN for a missing role in a JSON-RPC error', () => {
    const reply: JsonRpcReply = { id: 3, error: { code: -32002, message: 'this operation needs the writer role', data: { code: 'FORBIDDEN', required_role: 'writer' } } };
    const refusal = roleRefusalIn(reply);
    expect(refusal?.code).toBe('FORBIDDEN');
    expect(refusal?.message).toBe('this operation needs the writer role');
    expect(refusal?.details).toEqual({ required_role: 'writer' });
  });

  it('ignores results, other errors and results that only mention the marker', () => {
    const other: JsonRpcReply = { id: 3, error: { code: -32002, message: 'project x is outside your scope', data: { code: 'FORBIDDEN' } } };
    const unnamed: JsonRpcReply = { id: 3, error: { code: -32002, message: 'needs a role', data: { code: 'FORBIDDEN', required_role: 7 } } };
    const result: JsonRpcReply = { id: 3, result: { content: [{ type: 'text', text: '"required_role"' }], structuredContent: { required_role: 'writer' } } };
    const bare: JsonRpcReply = { id: null, error: { code: -32600, message: 'Invalid Request' } };
    for (const reply of [other, unnamed, result, bare]) expect(roleRefusalIn(reply)).toBeUndefined();
  });
});
