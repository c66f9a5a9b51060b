/**
 * `GET /`, the README's first URL: a browser is sent to the web console, a program is told where
 * MCP, REST, the OpenAPI document and health are — behind the same Host allowlist as every route.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildSurfacesApp } from '../../src/cli/serve-app.js';
import { resolveHttpConfig } from '../../src/http/http-config.js';
import { createHyphaeMetrics } from '../../src/metrics/index.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';
import type { FastifyInstance } from 'fastify';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

let runtime: TestRuntime;
const apps: FastifyInstance[] = [];

async function appWith(withConsole: boolean): Promise<FastifyInstance> {
  const { app } = await buildSurfacesApp({
    facade: runtime.facade,
    config: resolveHttpConfig({}),
    readiness: [],
    metrics: createHyphaeMetrics(),
    logger: false,
    version: '9.9.9-test',
    console: withConsole,
  });
  apps.push(app);
  return app;
}

beforeAll(async () => {
  runtime = await createTestRuntime();
});

afterAll(async () => {
  for (const app of apps) await app.close();
  await runtime?.close();
});

describe('GET /', () => {
  it('sends a browser to the console with 303', async () => {
    const app = await appWith(true);
    const response = await app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER_ACCEPT } });
    expect(response.statusCode).toBe(303);
    expect(response.headers.location).toBe('/console/');
  });

  it('tells a program where each surface is', async () => {
    const app = await appWith(true);
    const response = await app.inject({ method: 'GET', url: '/', headers: { accept: '*/*' } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({
      name: 'hyphae',
      version: '9.9.9-test',
      mcp: '/mcp',
      rest: '/v1',
      openapi: '/openapi.json',
      health: '/healthz',
      readiness: '/readyz',
      console: '/console/',
    });
  });

  it('with the console off, answers the index even to a browser', async () => {
    const app = await appWith(false);
    const response = await app.inject({ method: 'GET', url: '/', headers: { accept: BROWSER_ACCEPT } });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ mcp: '/mcp', console: null });
  });

  it('answers 421 to a Host it does not serve, as every route does', async () => {
    const app = await appWith(true);
    expect((await app.inject({ method: 'GET', url: '/', headers: { host: 'evil.example', accept: BROWSER_ACCEPT } })).statusCode).toBe(421);
  });
});
