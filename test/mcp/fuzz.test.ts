import { PassThrough } from 'node:stream';
import fc from 'fast-check';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runStdioServer } from '../../src/mcp/transports/stdio-server.js';
import { createTestRuntime } from '../support/test-runtime.js';
import type { TestRuntime } from '../support/test-runtime.js';
import { leaksInternals, malformedLine, plausibleToolCall } from './malformed-messages.js';
import { buildTestHttpApp } from './mcp-http-server.js';
import { buildBareMcpApp } from './mcp-http-app.js';
import { DOUBLE_KEY, DOUBLE_PRINCIPAL, createProtocolFacadeDouble } from '../support/mcp/protocol-facade-double.js';

const RUNS = 2000;

function expectWellFormedReply(text: string): void {
  const reply = JSON.parse(text) as Record<string, unknown>;
  expect(reply.jsonrpc).toBe('2.0');
  expect(typeof reply.id === 'string' || typeof reply.id === 'number' || reply.id === null).toBe(true);
  if ('error' in reply) {
    const error = reply.error as { code: unknown; message: unknown };
    expect(Number.isInteger(error.code)).toBe(true);
    expect(typeof error.message).toBe('string');
    expect('result' in reply).toBe(false);
  } else {
    expect(typeof reply.result).toBe('object');
  }
  expect(leaksInternals(text)).toBe(false);
}

describe('fuzz: HTTP', () => {
  let app: FastifyInstance;
  beforeAll(async () => {
    app = await buildBareMcpApp(createProtocolFacadeDouble());
  });
  afterAll(async () => {
    await app.close();
  });

  it(`answers ${RUNS} malformed bodies with a JSON-RPC reply or an empty 202, never 5xx`, async () => {
    await fc.assert(
      fc.asyncProperty(malformedLine, fc.constantFrom('2025-11-25', '2024-11-05', undefined), async (line, version) => {
        const headers: Record<string, string> = { 'content-type': 'application/json', 'x-hyphae-key': DOUBLE_KEY };
        if (version !== undefined) headers['mcp-protocol-version'] = version;
        const response = await app.inject({ method: 'POST', url: '/mcp', payload: line, headers });
        expect(response.statusCode).toBeLessThan(500);
        if (response.statusCode === 202) {
          expect(response.body).toBe('');
          return;
        }
        expect([200, 400]).toContain(response.statusCode);
        expectWellFormedReply(response.body);
      }),
      { numRuns: RUNS },
    );
  });
});

describe('fuzz: stdio', () => {
  it(`answers ${RUNS} malformed lines with one well-formed line each (requests) and survives`, async () => {
    const lines = fc.sample(malformedLine, { numRuns: RUNS, seed: 42 });
    const input = new PassThrough();
    const output = new PassThrough();
    const chunks: string[] = [];
    output.on('data', (chunk: Buffer) => chunks.push(chunk.toString('utf8')));
    const served = runStdioServer({ facade: createProtocolFacadeDouble(), principal: DOUBLE_PRINCIPAL, input, output });
    for (const line of lines) input.write(`${line}\n`);
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 'last', method: 'ping' })}\n`);
    input.end();
    await served;
    const replies = chunks.join('').split('\n').filter((line) => line !== '');
    for (const reply of replies) expectWellFormedReply(reply);
    expect(replies.length).toBeGreaterThan(RUNS / 2);
    expect(replies.length).toBeLessThanOrEqual(RUNS + 1);
    expect(replies.some((reply) => JSON.parse(reply).id === 'last')).toBe(true);
  });
});

describe('fuzz: tool calls on the real facade, through the full app', () => {
  let runtime: TestRuntime;
  let app: FastifyInstance;
  let key: string;
  beforeAll(async () => {
    runtime = await createTestRuntime();
    app = await buildTestHttpApp(runtime.facade);
    key = (await runtime.mintKey({ tenant: 'fuzz', agent: 'fuzzer' })).key;
  });
  afterAll(async () => {
    await app.close();
    await runtime.close();
  });

  it('answers 500 plausible tool calls with a result or a coded error, never an internal one', async () => {
    await fc.assert(
      fc.asyncProperty(plausibleToolCall, fc.constantFrom('2025-11-25', '2025-06-18'), async (line, version) => {
        const response = await app.inject({
          method: 'POST',
          url: '/mcp',
          payload: line,
          headers: { 'content-type': 'application/json', 'x-hyphae-key': key, 'mcp-protocol-version': version },
        });
        expect(response.statusCode).toBe(200);
        expectWellFormedReply(response.body);
        const reply = JSON.parse(response.body) as { error?: { code: number } };
        expect(reply.error?.code, response.body).not.toBe(-32008);
      }),
      { numRuns: 500 },
    );
  });
});
