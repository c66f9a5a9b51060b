/** The app `hyphae serve` runs (buildSurfacesApp) over a test runtime, listening on loopback, with the toolsets a test asks for. */
import type { FastifyInstance } from 'fastify';
import { buildSurfacesApp } from '../../../src/cli/serve-app.js';
import { resolveHttpConfig } from '../../../src/http/http-config.js';
import type { HydraConnection, ToolsetChoice } from '../../../src/mcp/index.js';
import { createHyphaeMetrics } from '../../../src/metrics/index.js';
import type { MemoryFacade } from '../../../src/service/memory-facade.js';

export interface HydraServer {
  readonly app: FastifyInstance;
  readonly base: URL;
}

export async function startHydraServer(facade: MemoryFacade, options: { toolsets?: ToolsetChoice; hydradb?: HydraConnection } = {}): Promise<HydraServer> {
  const { app } = await buildSurfacesApp({
    facade,
    config: resolveHttpConfig({ rateLimitPerMinute: 1_000_000, failedAuthPerMinute: 1_000_000 }),
    readiness: [],
    metrics: createHyphaeMetrics(),
    logger: false,
    version: 'test',
    ...options,
  });
  const base = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
  return { app, base };
}
