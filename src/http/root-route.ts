/**
 * `GET /`, the first URL the README gives: a browser (Accept names text/html) is sent on to the
 * web console when it is mounted; a program gets a small JSON index of where each surface is.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { mediaType } from '../surface-shared/index.js';
import type { PlainOperation } from './openapi-document.js';

const CONSOLE_URL = '/console/';

export const rootIndexSchema = z.strictObject({
  name: z.literal('hyphae'),
  version: z.string(),
  mcp: z.string().describe('MCP over HTTP (Streamable HTTP)'),
  rest: z.string().describe('The REST API'),
  openapi: z.string().describe('Its OpenAPI document'),
  health: z.string(),
  readiness: z.string(),
  console: z.string().nullable().describe('The web console; null when it is off'),
});

export const ROOT_OPERATION: PlainOperation = {
  method: 'GET',
  url: '/',
  operationId: 'rootIndex',
  summary: 'Where each surface is; a browser asking for HTML is redirected (303) to the web console when it is on',
  tag: 'operations',
  responses: { 200: { description: 'The index', schema: rootIndexSchema }, 303: { description: 'To the web console', contentType: 'text/plain' } },
};

function acceptsHtml(request: FastifyRequest): boolean {
  const accept = request.headers.accept;
  return typeof accept === 'string' && accept.split(',').some((range) => mediaType(range) === 'text/html');
}

export function registerRootRoute(app: FastifyInstance, version: string): void {
  app.get('/', async (request, reply) => {
    // Asked here, not at registration: the console's routes are mounted by a plugin, once the app is ready.
    const consoleOn = app.hasRoute({ method: 'GET', url: `${CONSOLE_URL}*` });
    if (consoleOn && acceptsHtml(request)) return reply.redirect(CONSOLE_URL, 303);
    return {
      name: 'hyphae',
      version,
      mcp: '/mcp',
      rest: '/v1',
      openapi: '/openapi.json',
      health: '/healthz',
      readiness: '/readyz',
      console: consoleOn ? CONSOLE_URL : null,
    } satisfies z.input<typeof rootIndexSchema>;
  });
}
