/**
 * `GET /metrics` (Prometheus text format) and the request-duration hook. Open by default so a
 * scraper needs no key; a configured bearer token closes it.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { UnauthenticatedError } from '../core/errors.js';
import type { HyphaeMetrics } from '../metrics/index.js';
import type { PlainOperation } from './openapi-document.js';

export const METRICS_OPERATION: PlainOperation = {
  method: 'GET',
  url: '/metrics',
  operationId: 'metrics',
  summary: 'Prometheus metrics (text exposition format); bearer token when configured',
  tag: 'operations',
  responses: { 200: { description: 'Metrics', contentType: 'text/plain' } },
};

/** Label for requests that matched no route: the raw URL would be unbounded. */
export const UNMATCHED_ROUTE = 'unmatched';

function bearerMatches(header: string | undefined, token: string): boolean {
  if (header === undefined || !header.startsWith('Bearer ')) return false;
  const offered = Buffer.from(header.slice('Bearer '.length));
  const expected = Buffer.from(token);
  return offered.length === expected.length && timingSafeEqual(offered, expected);
}

export function registerMetricsRoute(app: FastifyInstance, metrics: HyphaeMetrics, bearerToken: string | undefined): void {
  app.addHook('onResponse', async (request, reply) => {
    metrics.observeHttpRequest(request.method, request.routeOptions.url ?? UNMATCHED_ROUTE, reply.statusCode, reply.elapsedTime / 1000);
  });

  app.get('/metrics', async (request, reply) => {
    if (bearerToken !== undefined && !bearerMatches(request.headers.authorization, bearerToken)) {
      throw new UnauthenticatedError('metrics need the configured bearer token');
    }
    return reply.type(metrics.contentType).send(await metrics.render());
  });
}
