/** Drives runStdioServer over in-memory streams with raw JSON-RPC lines, matching replies by id. */
import { PassThrough } from 'node:stream';
import type { Principal } from '../../src/core/principal.js';
import { runStdioServer } from '../../src/mcp/transports/stdio-server.js';
import type { MemoryFacade } from '../../src/service/memory-facade.js';

export interface RpcReply {
  readonly jsonrpc: '2.0';
  readonly id: string | number | null;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: Record<string, unknown> };
}

export interface InProcessStdio {
  request(method: string, params?: Record<string, unknown>): Promise<RpcReply>;
  /** Calls a tool and returns its structuredContent, or throws the reply when it is an error. */
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, unknown>>;
  close(): Promise<void>;
}

export async function startInProcessStdio(facade: MemoryFacade, principal: Principal, protocolVersion = '2025-11-25'): Promise<InProcessStdio> {
  const input = new PassThrough();
  const output = new PassThrough();
  const waiting = new Map<string | number, (reply: RpcReply) => void>();
  let buffered = '';
  output.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let newline = buffered.indexOf('\n');
    while (newline !== -1) {
      const reply = JSON.parse(buffered.slice(0, newline)) as RpcReply;
      buffered = buffered.slice(newline + 1);
      if (reply.id !== null) waiting.get(reply.id)?.(reply);
      newline = buffered.indexOf('\n');
    }
  });
  const served = runStdioServer({ facade, principal, input, output });
  let nextId = 1;
  const request = (method: string, params?: Record<string, unknown>): Promise<RpcReply> => {
    const id = nextId++;
    return new Promise((resolve) => {
      waiting.set(id, resolve);
      input.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) })}\n`);
    });
  };
  await request('initialize', { protocolVersion, capabilities: {}, clientInfo: { name: 'test', version: '1' } });
  input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
  return {
    request,
    async callTool(name, args) {
      const reply = await request('tools/call', { name, arguments: args });
      if (reply.error !== undefined || reply.result?.isError === true) throw reply;
      return reply.result?.structuredContent as Record<string, unknown>;
    },
    async close() {
      input.end();
      await served;
    },
  };
}
