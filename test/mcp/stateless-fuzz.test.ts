/**
 * Fuzz (fast-check) of MCP 2026-07-28 messages against the real facade with a live feed: near-valid
 * `_meta`, params and filters, with the Streamable HTTP headers derived right or set wrong. Over
 * HTTP every answer is below 500 and well-formed — a JSON-RPC reply, a 202, or (a valid
 * subscriptions/listen) an SSE stream that opens with its acknowledgment — and no stateless answer
 * carries a code the revision forbids (-32002, -32042, unallocated -32023…-32099) or an internal
 * error. Over stdio every line out is a well-formed reply or a tagged notification, and the server
 * survives to answer a last request.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { startMeshReplica } from '../support/mesh/mesh-replica.js';
import type { MeshReplica } from '../support/mesh/mesh-replica.js';
import { leaksInternals } from './malformed-messages.js';
import { SUBSCRIPTION_ID, startRawStdio } from '../support/mcp/stateless-client.js';
import type { RpcMessage } from '../support/mcp/stateless-client.js';
import { derivedHeaders, statelessCase } from './stateless-messages.js';

const HTTP_RUNS = 600;
const STDIO_RUNS = 1000;
const FORBIDDEN_CODES = new Set([-32002, -32042, -32603, -32008]);

function expectStatelessReply(reply: RpcMessage, text: string): void {
  expect(reply.jsonrpc).toBe('2.0');
  expect(typeof reply.id === 'string' || typeof reply.id === 'number' || reply.id === null).toBe(true);
  if (reply.error !== undefined) {
    expect(Number.isInteger(reply.error.code)).toBe(true);
    expect(typeof reply.error.message).toBe('string');
    expect(reply.result).toBeUndefined();
    expect(FORBIDDEN_CODES.has(reply.error.code), text).toBe(false);
    // Results carry prose (a prompt's "at most (1–50…)" reads like a stack frame); errors must not leak.
    expect(leaksInternals(JSON.stringify(reply.error))).toBe(false);
    // The revision's own range holds only the codes it allocated.
    if (reply.error.code <= -32020 && reply.error.code >= -32099) expect([-32020, -32021, -32022]).toContain(reply.error.code);
  } else {
    expect(reply.result?.resultType, text).toBe('complete');
  }
}

describe('fuzz: stateless-revision messages', () => {
  let embedder: Embedder;
  let replica: MeshReplica;
  let key: string;

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    replica = await startMeshReplica({ name: 'fuzz', db: await createMeshTestDb(embedder.dimension), bus: new MemoryBus(), embedder });
    key = (await createKeyAdministration(replica.db).createKey({ tenant: 'fuzz', agent: 'fuzzer' })).key;
  });
  afterAll(async () => {
    await replica?.close();
    await embedder?.close();
  });

  it(`answers ${HTTP_RUNS} stateless requests over HTTP below 500, well-formed, with no forbidden code`, async () => {
    await fc.assert(
      fc.asyncProperty(statelessCase, async ({ body, rightHeaders, wrongHeader, wrongValue }) => {
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'x-hyphae-key': key,
          ...derivedHeaders(body),
        };
        if (!rightHeaders) headers[wrongHeader] = wrongValue;
        const abort = new AbortController();
        const response = await fetch(`${replica.url}/mcp`, { method: 'POST', headers, body: JSON.stringify(body), signal: abort.signal });
        expect(response.status).toBeLessThan(500);
        if ((response.headers.get('content-type') ?? '').startsWith('text/event-stream')) {
          expect(response.status).toBe(200);
          const reader = (response.body as ReadableStream<Uint8Array>).pipeThrough(new TextDecoderStream()).getReader();
          let text = '';
          while (!text.includes('\n\n')) {
            const { value, done } = await reader.read();
            if (done) break;
            text += value;
          }
          abort.abort();
          const first = JSON.parse(text.slice(text.indexOf('data:') + 5, text.indexOf('\n\n')).trim()) as RpcMessage;
          expect(first.method).toBe('notifications/subscriptions/acknowledged');
          expect((first.params?._meta as Record<string, unknown>)[SUBSCRIPTION_ID]).toBe(body.id);
          return;
        }
        const text = await response.text();
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        expectStatelessReply(JSON.parse(text) as RpcMessage, text);
        if (response.status === 400) {
          const code = (JSON.parse(text) as RpcMessage).error?.code;
          expect([-32020, -32021, -32022, -32602, -32600, -32700]).toContain(code);
        }
      }),
      { numRuns: HTTP_RUNS },
    );
    // Every stream the fuzz opened was closed with it.
    await expect.poll(() => replica.listenStreams.openStreams).toBe(0);
  });

  it(`answers ${STDIO_RUNS} stateless lines over stdio with well-formed lines only, and survives`, async () => {
    const cases = fc.sample(statelessCase, { numRuns: STDIO_RUNS, seed: 2026 });
    const stdio = startRawStdio(replica.facade, await replica.facade.authenticate(key));
    for (const { body } of cases) stdio.send(body);
    const last = await stdio.request({ jsonrpc: '2.0', id: 'last', method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {} } } });
    expect(last.result?.tools).toHaveLength(11);
    await stdio.close();
    let replies = 0;
    for (const line of stdio.lines) {
      if (line.method === undefined) {
        replies += 1;
        expectStatelessReply(line, JSON.stringify(line));
      } else {
        // Notifications only on listen streams, each tagged with its subscription.
        expect(['notifications/subscriptions/acknowledged', 'notifications/cancelled', 'notifications/resources/updated', 'notifications/resources/list_changed']).toContain(line.method);
        const tag = line.method === 'notifications/cancelled' ? line.params?.requestId : (line.params?._meta as Record<string, unknown>)[SUBSCRIPTION_ID];
        expect(typeof tag === 'string' || typeof tag === 'number').toBe(true);
      }
    }
    // One reply per request, except valid listens (acknowledged instead, answered only by their end).
    const acknowledged = stdio.lines.filter((line) => line.method === 'notifications/subscriptions/acknowledged').length;
    expect(replies + acknowledged).toBe(STDIO_RUNS + 1);
  });
});
