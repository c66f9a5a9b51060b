/** A fastify app serving only /mcp, for protocol-level HTTP tests (the full app: buildSurfacesApp in src/cli/serve-app.ts). */
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import { registerMcpRoutes } from '../../src/mcp/transports/http-routes.js';
import type { MemoryFacade } from '../../src/service/memory-facade.js';

export const TEST_BODY_LIMIT = 256 * 1024;

export async function buildBareMcpApp(facade: MemoryFacade): Promise<FastifyInstance> {
  const app = Fastify({ logger: false, bodyLimit: TEST_BODY_LIMIT });
  registerMcpRoutes(app, { facade });
  await app.ready();
  return app;
}
