/** A real listening server with the /mcp routes, for the SDK's Streamable HTTP client and benches. */
import type { FastifyInstance } from 'fastify';
import type { MemoryFacade } from '../../../src/service/memory-facade.js';
import { buildBareMcpApp } from './mcp-http-app.js';

export interface ListeningMcpServer {
  readonly url: URL;
  readonly app: FastifyInstance;
  close(): Promise<void>;
}

export async function startMcpHttpServer(facade: MemoryFacade): Promise<ListeningMcpServer> {
  const app = await buildBareMcpApp(facade);
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url: new URL('/mcp', address), app, close: () => app.close() };
}
