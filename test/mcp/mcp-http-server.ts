/** The real HTTP app with /mcp mounted (`buildSurfacesApp`, as serve builds it) listening on loopback, for SDK clients. */
import type { FastifyInstance } from 'fastify';
import { buildSurfacesApp } from '../../src/cli/serve-app.js';
import type { HttpConfig } from '../../src/http/http-config.js';
import { resolveHttpConfig } from '../../src/http/http-config.js';
import { createHyphaeMetrics } from '../../src/metrics/index.js';
import type { MemoryFacade } from '../../src/service/memory-facade.js';

export interface ListeningMcpServer {
  readonly url: URL;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

export async function buildTestHttpApp(facade: MemoryFacade, config: Partial<HttpConfig> = {}): Promise<FastifyInstance> {
  const { app } = await buildSurfacesApp({
    facade,
    config: resolveHttpConfig({ rateLimitPerMinute: 1_000_000, failedAuthPerMinute: 1_000_000, ...config }),
    readiness: [],
    metrics: createHyphaeMetrics(),
    logger: false,
    version: 'test',
  });
  return app;
}

export async function startMcpHttpServer(facade: MemoryFacade, config: Partial<HttpConfig> = {}): Promise<ListeningMcpServer> {
  const app = await buildTestHttpApp(facade, config);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: new URL('/mcp', address), app, close: () => app.close() };
}
