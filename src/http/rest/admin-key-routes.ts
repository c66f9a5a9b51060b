/** `/v1/admin/keys`: API key administration (mint, list, revoke, rotate) within the caller's own reach, and `/v1/admin/projects`: the project purge; the facade admits the admin role only. */
import { apiKeyListSchema, createdApiKeySchema, purgedProjectSchema } from '../../core/output-schemas.js';
import { createKeyInputSchema, purgeProjectInputSchema } from '../../core/schemas.js';
import { keyIdParamsSchema } from './path-params.js';
import { defineRoute, type RestRoute } from './rest-route.js';

export const adminKeyRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'POST',
    url: '/v1/admin/keys',
    operationId: 'createKey',
    summary: 'Mint an API key within your own projects, roles and trust; the clear key is in this response only',
    tag: 'admin',
    schemas: { body: createKeyInputSchema },
    success: { status: 201, description: 'The key, with its clear secret', schema: createdApiKeySchema },
    errors: ['CONFLICT'],
    async handle(facade, { principal, body }) {
      return { status: 201, payload: await facade.createKey(principal, body) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/admin/keys',
    operationId: 'listKeys',
    summary: 'The API keys of your tenant within your own projects, roles and trust, without secrets',
    tag: 'admin',
    schemas: {},
    success: { status: 200, description: 'The keys', schema: apiKeyListSchema },
    errors: [],
    async handle(facade, { principal }) {
      return { status: 200, payload: { keys: await facade.listKeys(principal) } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/v1/admin/keys/:id',
    operationId: 'revokeKey',
    summary: 'Revoke an API key within your own projects, roles and trust (any other reads as not found)',
    tag: 'admin',
    schemas: { params: keyIdParamsSchema },
    success: { status: 204, description: 'Revoked' },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, params }) {
      await facade.revokeKey(principal, params.id);
      return { status: 204 };
    },
  }),
  defineRoute({
    method: 'POST',
    url: '/v1/admin/keys/:id/rotate',
    operationId: 'rotateKey',
    summary: 'Replace an API key within your own projects, roles and trust: a new key with its attributes, the old one revoked, at once; the clear key is in this response only',
    tag: 'admin',
    schemas: { params: keyIdParamsSchema },
    success: { status: 201, description: 'The replacement, with its clear secret', schema: createdApiKeySchema },
    errors: ['NOT_FOUND', 'CONFLICT'],
    async handle(facade, { principal, params }) {
      return { status: 201, payload: await facade.rotateKey(principal, params.id) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/v1/admin/projects',
    operationId: 'purgeProject',
    summary: "Erase one project of your tenant: its cells (every layer and version), scenes, sessions, the beacons watching only it and the diffs about it; no deleted diffs are sent",
    tag: 'admin',
    schemas: { query: purgeProjectInputSchema },
    success: { status: 200, description: 'What was erased, by kind (all zero for a project that holds nothing)', schema: purgedProjectSchema },
    errors: [],
    async handle(facade, { principal, query }) {
      return { status: 200, payload: await facade.purgeProject(principal, query) };
    },
  }),
];
