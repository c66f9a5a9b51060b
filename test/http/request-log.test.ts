/**
 * Request log lines (HYPHAE_REQUEST_LOG): `info` — fastify's JSON lines, for a collector, the
 * clustered default — or `debug`, one line per request seen only at debug, the embedded default.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSurfacesApp } from '../../src/cli/serve-app.js';
import { loadConfig } from '../../src/core/config.js';
import { resolveHttpConfig } from '../../src/http/http-config.js';
import type { RequestLogLevel } from '../../src/http/request-log.js';
import { createHyphaeMetrics } from '../../src/metrics/index.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';

let runtime: TestRuntime;

beforeAll(async () => {
  runtime = await createTestRuntime();
});

afterAll(async () => {
  await runtime?.close();
});

/** Log lines written while serving `count` requests, at logger level `level`. */
async function linesFor(level: string, requests: RequestLogLevel, count: number): Promise<Record<string, unknown>[]> {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done): void {
      lines.push(...chunk.toString('utf8').split('\n').filter((line) => line.length > 0));
      done();
    },
  });
  const { app } = await buildSurfacesApp({
    facade: runtime.facade,
    config: resolveHttpConfig({}),
    readiness: [],
    metrics: createHyphaeMetrics(),
    logger: { level, requests, stream },
    version: '0.0.0-test',
  });
  try {
    for (let i = 0; i < count; i++) expect((await app.inject({ method: 'GET', url: '/v1/cells' })).statusCode).toBe(401);
  } finally {
    await app.close();
  }
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((line) => line.msg !== 'Server listening at');
}

describe('request log lines', () => {
  it('defaults to debug embedded and to info with PostgreSQL, and can be chosen', () => {
    expect(loadConfig({}).log.requests).toBe('debug');
    expect(loadConfig({ HYPHAE_DATABASE_URL: 'postgres://db/hyphae' }).log.requests).toBe('info');
    expect(loadConfig({ HYPHAE_REQUEST_LOG: 'info' }).log.requests).toBe('info');
    expect(() => loadConfig({ HYPHAE_REQUEST_LOG: 'loud' })).toThrow(/HYPHAE_REQUEST_LOG/);
  });

  it('debug: nothing at the default info level, one line per request at debug', async () => {
    expect(await linesFor('info', 'debug', 5)).toEqual([]);
    const lines = await linesFor('debug', 'debug', 5);
    expect(lines.map((line) => line.msg)).toEqual(Array.from({ length: 5 }, () => 'request completed'));
    expect(lines[0]).toMatchObject({ level: 20, req: { method: 'GET', url: '/v1/cells' }, res: { statusCode: 401 } });
  });

  it('info: the structured JSON lines a collector reads, at info', async () => {
    const lines = await linesFor('info', 'info', 3);
    expect(lines.filter((line) => line.msg === 'request completed')).toHaveLength(3);
    expect(lines.filter((line) => line.msg === 'incoming request')).toHaveLength(3);
  });
});
