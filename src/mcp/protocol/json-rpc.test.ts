import { describe, expect, it } from 'vitest';
import { PreparedJson, classifyMessage, namedParams, serializeError, serializeReply, serializeResult, withResultMembers } from './json-rpc.js';

describe('classifyMessage', () => {
  it('reads a request with a string or a number id', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 'a', method: 'ping' })).toEqual({ kind: 'request', id: 'a', method: 'ping', params: undefined });
    expect(classifyMessage({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} })).toMatchObject({ kind: 'request', id: 7 });
  });

  it('reads a notification (no id) and a client response', () => {
    expect(classifyMessage({ jsonrpc: '2.0', method: 'notifications/initialized' })).toEqual({ kind: 'notification', method: 'notifications/initialized' });
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, result: {} })).toEqual({ kind: 'response' });
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, error: { code: 1, message: 'x' } })).toEqual({ kind: 'response' });
  });

  it.each([
    ['a batch', [{ jsonrpc: '2.0', id: 1, method: 'ping' }], null],
    ['an empty batch', [], null],
    ['a string', 'ping', null],
    ['null', null, null],
    ['a wrong jsonrpc', { jsonrpc: '1.0', id: 3, method: 'ping' }, 3],
    ['a missing jsonrpc', { id: 'x', method: 'ping' }, 'x'],
    ['a missing method', { jsonrpc: '2.0', id: 4 }, 4],
    ['a numeric method', { jsonrpc: '2.0', id: 5, method: 5 }, 5],
    ['an empty method', { jsonrpc: '2.0', id: 6, method: '' }, 6],
    ['a null id', { jsonrpc: '2.0', id: null, method: 'ping' }, null],
    ['an object id', { jsonrpc: '2.0', id: {}, method: 'ping' }, null],
    ['a boolean id', { jsonrpc: '2.0', id: true, method: 'ping' }, null],
    ['primitive params', { jsonrpc: '2.0', id: 8, method: 'ping', params: 3 }, 8],
  ])('refuses %s as -32600 with the readable id', (_label, value, id) => {
    expect(classifyMessage(value)).toMatchObject({ kind: 'invalid', id, error: { code: -32600 } });
  });

  it('keeps array params for the method to refuse', () => {
    expect(classifyMessage({ jsonrpc: '2.0', id: 1, method: 'ping', params: [1] })).toMatchObject({ kind: 'request', params: [1] });
    expect(namedParams([1])).toBeNull();
    expect(namedParams(null)).toBeNull();
    expect(namedParams(undefined)).toEqual({});
  });
});

describe('serialisation', () => {
  it('splices a ready result and serialises errors', () => {
    expect(JSON.parse(serializeResult('x"y', '{"a":1}'))).toEqual({ jsonrpc: '2.0', id: 'x"y', result: { a: 1 } });
    expect(JSON.parse(serializeError(null, { code: -32700, message: 'p' }))).toEqual({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'p' } });
  });
});

describe('replies as values', () => {
  it('serialises a result reply, an error reply and a prepared result to the wire text, key order included', () => {
    expect(serializeReply({ id: 1, result: { a: 1, b: [true] } })).toBe('{"jsonrpc":"2.0","id":1,"result":{"a":1,"b":[true]}}');
    expect(serializeReply({ id: 'x', error: { code: -32602, message: 'm', data: { code: 'INVALID_ARGUMENT' } } })).toBe(
      '{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"m","data":{"code":"INVALID_ARGUMENT"}}}',
    );
    expect(serializeReply({ id: null, error: { code: -32700, message: 'p' } })).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"p"}}');
    expect(serializeReply({ id: 2, result: new PreparedJson('{"tools":[]}') })).toBe('{"jsonrpc":"2.0","id":2,"result":{"tools":[]}}');
  });

  it('appends members after those of the result, to a value and to prepared text alike', () => {
    const members = { ttlMs: 0, cacheScope: 'private', resultType: 'complete' };
    const wire = '{"jsonrpc":"2.0","id":1,"result":{"tools":[],"ttlMs":0,"cacheScope":"private","resultType":"complete"}}';
    expect(serializeReply({ id: 1, result: withResultMembers({ tools: [] }, members) })).toBe(wire);
    expect(serializeReply({ id: 1, result: withResultMembers(new PreparedJson('{"tools":[]}'), members) })).toBe(wire);
    const meta = { resultType: 'complete', _meta: new PreparedJson('{"s":1}') };
    expect(serializeReply({ id: 1, result: withResultMembers(new PreparedJson('{"tools":[]}'), meta) })).toBe('{"jsonrpc":"2.0","id":1,"result":{"tools":[],"resultType":"complete","_meta":{"s":1}}}');
    expect(serializeReply({ id: 1, result: withResultMembers({ tools: [], gone: undefined }, meta) })).toBe('{"jsonrpc":"2.0","id":1,"result":{"tools":[],"resultType":"complete","_meta":{"s":1}}}');
    expect(serializeReply({ id: 1, result: withResultMembers(new PreparedJson('{}'), { resultType: 'complete' }) })).toBe(
      '{"jsonrpc":"2.0","id":1,"result":{"resultType":"complete"}}',
    );
  });
});
