import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { HEALTH_OPERATIONS } from '../../src/http/health-routes.js';
import { METRICS_OPERATION } from '../../src/http/metrics-route.js';
import { buildOpenApiDocument, openApiPath } from '../../src/http/openapi-document.js';
import { PORTABILITY_OPERATIONS } from '../../src/http/rest/admin-portability-routes.js';
import { EVENT_STREAM_ROUTES } from '../../src/http/rest/gossip-stream-route.js';
import { REST_ROUTES } from '../../src/http/rest/rest-routes.js';

const document = buildOpenApiDocument({
  version: '0.0.0-test',
  routes: REST_ROUTES,
  rawOperations: PORTABILITY_OPERATIONS,
  streamRoutes: EVENT_STREAM_ROUTES,
  plainOperations: [...HEALTH_OPERATIONS, METRICS_OPERATION],
});

/** Every JSON Schema object the document embeds, with where it sits. */
function embeddedSchemas(node: unknown, where: string, found: [string, Record<string, unknown>][] = []): [string, Record<string, unknown>][] {
  if (node === null || typeof node !== 'object') return found;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'schema' && value !== null && typeof value === 'object') found.push([`${where}.schema`, value as Record<string, unknown>]);
    else embeddedSchemas(value, `${where}.${key}`, found);
  }
  return found;
}

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('lists every route of docs/rest.md with its method (and the history route of supersession)', () => {
    const operations = Object.entries(document.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) =>
      Object.keys(ops).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.sort()).toEqual(
      [
        'POST /v1/cells',
        'GET /v1/cells/{id}',
        'GET /v1/cells/{id}/history',
        'GET /v1/cells/{id}/relations',
        'POST /v1/cells/{id}/relations',
        'POST /v1/feedback',
        'GET /v1/feedback/quality',
        'DELETE /v1/cells/{id}/relations',
        'GET /v1/cells/{id}/subgraph',
        'GET /v1/cells',
        'DELETE /v1/cells/{id}',
        'DELETE /v1/cells',
        'POST /v1/recall',
        'POST /v1/query',
        'POST /v1/sessions',
        'POST /v1/sessions/{id}/close',
        'POST /v1/beacons',
        'GET /v1/beacons',
        'DELETE /v1/beacons/{id}',
        'GET /v1/diffs',
        'POST /v1/inbox/drain',
        'GET /v1/scenes',
        'GET /v1/scenes/{id}',
        'POST /v1/scenes/{id}/consolidate',
        'POST /v1/admin/keys',
        'GET /v1/admin/keys',
        'DELETE /v1/admin/keys/{id}',
        'POST /v1/admin/keys/{id}/rotate',
        'DELETE /v1/admin/projects',
        'GET /v1/admin/export',
        'POST /v1/admin/import',
        'GET /v1/admin/quotas',
        'GET /v1/me',
        'GET /v1/gossip/agents',
        'GET /v1/gossip/events',
        'GET /v1/gossip/stream',
        'POST /v1/sources',
        'GET /v1/sources',
        'GET /v1/sources/{id}',
        'GET /v1/sources/{id}/status',
        'GET /v1/sources/{id}/chunks',
        'DELETE /v1/sources/{id}',
        'DELETE /v1/admin/agents/{agent}/memories',
        'DELETE /v1/admin/tenant',
        'GET /v1/admin/erasures',
        'GET /healthz',
        'GET /readyz',
        'GET /metrics',
      ].sort(),
    );
  });

  it('embeds only schemas a strict JSON Schema 2020-12 validator compiles', () => {
    const ajv = new Ajv2020({ strict: true, allErrors: true });
    ajvFormats.default(ajv);
    const components = (document.components as { schemas: Record<string, object> }).schemas;
    for (const [name, schema] of Object.entries(components)) ajv.addSchema({ ...structuredClone(schema), $id: `component-${name}` });
    const schemas = embeddedSchemas(document.paths, 'paths');
    expect(schemas.length).toBeGreaterThan(40);
    for (const [where, schema] of schemas) {
      const resolvable = JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"component-')) as object;
      expect(() => ajv.compile(resolvable), where).not.toThrow();
    }
  });

  it('never offers tenant_id or source_agent in a request', () => {
    for (const route of REST_ROUTES) {
      const operation = (document.paths as Record<string, Record<string, { requestBody?: unknown; parameters?: unknown }>>)[openApiPath(route.url)]?.[
        route.method.toLowerCase()
      ];
      const request = JSON.stringify([operation?.requestBody ?? null, operation?.parameters ?? null]);
      // As a field name: the recall filter `source_agents` names authors to match, never the caller.
      expect(request, route.operationId).not.toMatch(/"(tenant_id|source_agent)"/);
    }
  });

  it('marks health, readiness and metrics as needing no key, and /v1 as needing one', () => {
    const paths = document.paths as Record<string, Record<string, { security?: unknown[] }>>;
    expect(paths['/healthz']?.get?.security).toEqual([]);
    expect(paths['/v1/cells']?.post?.security).toBeUndefined();
    expect(document.security).toEqual([{ apiKey: [] }, { apiKeyBearer: [] }]);
  });
});
