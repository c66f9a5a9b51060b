/**
 * Logs never carry content, vectors, SQL or its parameters (docs/security.md). A real database failure is
 * provoked with a CHECK constraint that refuses one content: PostgreSQL's error then carries the
 * INSERT, its parameters (tenant, agent, content, metadata, the vector) and a message; the log
 * line of the 500 must name the failure (class, SQLSTATE) and hold none of the rest, over REST
 * and over MCP.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeLoggableError, loggableError } from '../../src/core/loggable-error.js';
import { InvalidArgumentError, toHyphaeError } from '../../src/core/errors.js';
import type { MintedKey } from '../support/test-runtime.js';
import { createHttpTestApp, type HttpTestApp } from '../support/http/http-test-app.js';

const SECRET_CONTENT = 'the vault combination is 7-3-1-SECRET';
const SECRET_METADATA = 'metadata-SECRET-value';

let t: HttpTestApp;
let key: MintedKey;

beforeAll(async () => {
  t = await createHttpTestApp();
  key = await t.runtime.mintKey({ tenant: 'tenant-SECRET', agent: 'agent-SECRET' });
  await t.runtime.db.query(`ALTER TABLE cells ADD CONSTRAINT refuses_vaults CHECK (content NOT LIKE '%vault%')`);
});

afterAll(async () => {
  await t?.close();
});

function serverFaultLines(): string[] {
  return t.logLines.filter((line) => (JSON.parse(line) as { level: number }).level >= 50);
}

function expectNothingOfTheRequest(lines: readonly string[]): void {
  const text = lines.join('\n');
  for (const secret of [SECRET_CONTENT, 'vault', SECRET_METADATA, 'tenant-SECRET', 'agent-SECRET', key.key]) expect(text).not.toContain(secret);
  expect(text).not.toMatch(/INSERT|SELECT|\$1|params|query/i);
  // A 384/512-d vector as text would be a long run of comma-separated decimals.
  expect(text).not.toMatch(/(-?\d\.\d+,){8}/);
}

describe('error logs are redacted in one place', () => {
  it('a REST 500 from the database logs its class and SQLSTATE, not the SQL, its parameters or the content', async () => {
    const before = serverFaultLines().length;
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/cells',
      headers: { 'x-hyphae-key': key.key, 'content-type': 'application/json' },
      payload: JSON.stringify({ content: SECRET_CONTENT, cell_type: 'Fact', metadata: { note: SECRET_METADATA } }),
    });
    expect(response.statusCode).toBe(500);
    const lines = serverFaultLines().slice(before);
    expect(lines).toHaveLength(1);
    const logged = JSON.parse(lines[0] as string) as { err: Record<string, unknown> };
    expect(logged.err).toMatchObject({ sqlstate: '23514', message: '[redacted]' });
    expect(Object.keys(logged.err).sort()).toEqual(['message', 'sqlstate', 'stack', 'type']);
    expectNothingOfTheRequest(lines);
  });

  it('an MCP tool call that fails in the database logs the same summary and nothing of the call', async () => {
    const before = serverFaultLines().length;
    const response = await t.app.inject({
      method: 'POST',
      url: '/mcp',
      headers: { 'x-hyphae-key': key.key, 'content-type': 'application/json', accept: 'application/json' },
      payload: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'store', arguments: { content: SECRET_CONTENT, cell_type: 'Fact', metadata: { note: SECRET_METADATA } } },
      }),
    });
    expect(JSON.parse(response.body).error.code).toBe(-32008);
    const lines = serverFaultLines().slice(before);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).toContain('SQLSTATE 23514');
    expectNothingOfTheRequest(lines);
  });

  it('keeps our own messages and stack frames, and drops every field of a foreign error', () => {
    const driverError = Object.assign(new Error('new row violates check constraint: "secret"'), {
      code: '23514',
      query: 'INSERT INTO cells …',
      params: ['tenant', 'secret content'],
    });
    const logged = loggableError(toHyphaeError(driverError));
    expect(logged).toMatchObject({ type: 'HyphaeError', code: 'INTERNAL', message: 'internal error', cause: { type: 'Error', sqlstate: '23514', message: '[redacted]' } });
    expect(logged.stack).toMatch(/^ {4}at /);
    expect(JSON.stringify(logged)).not.toMatch(/secret|INSERT|params/);
    expect(describeLoggableError(new InvalidArgumentError('k must be at most 100'))).toBe('InvalidArgumentError [INVALID_ARGUMENT]: k must be at most 100');
    expect(loggableError('a thrown string with content')).toEqual({ type: 'string', message: '[redacted]', stack: '' });
  });
});
