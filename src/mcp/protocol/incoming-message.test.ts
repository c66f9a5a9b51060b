import { describe, expect, it } from 'vitest';
import { classifyIncoming } from './incoming-message.js';

const META = { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } };

describe('classifyIncoming', () => {
  it('tells a stateless request from a handshake one, once, with the id a reply names', () => {
    expect(classifyIncoming({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: META })).toEqual({
      message: { kind: 'request', id: 1, method: 'tools/list', params: META },
      replyId: 1,
      stateless: true,
    });
    expect(classifyIncoming({ jsonrpc: '2.0', id: 'a', method: 'tools/list', params: {} })).toMatchObject({ replyId: 'a', stateless: false });
  });

  it('reads the declared revision of a body that is otherwise invalid, as the HTTP header rules need', () => {
    expect(classifyIncoming({ jsonrpc: '1.0', id: 3, method: 'tools/list', params: META })).toMatchObject({
      message: { kind: 'invalid', id: 3 },
      replyId: 3,
      stateless: true,
    });
  });

  it('gives a client response its id and a notification or non-object none; neither is stateless', () => {
    expect(classifyIncoming({ jsonrpc: '2.0', id: 9, result: {} })).toEqual({ message: { kind: 'response' }, replyId: 9, stateless: false });
    expect(classifyIncoming({ jsonrpc: '2.0', method: 'notifications/cancelled', params: META })).toMatchObject({ replyId: null, stateless: false });
    expect(classifyIncoming([{ jsonrpc: '2.0', id: 1, method: 'ping' }])).toMatchObject({ message: { kind: 'invalid' }, replyId: null, stateless: false });
  });
});
