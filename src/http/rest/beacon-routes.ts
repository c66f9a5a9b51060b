/** `/v1/beacons`: standing interests of the caller. */
import { beaconSchema, beaconsPageSchema } from '../../core/output-schemas.js';
import { listBeaconsInputSchema, placeBeaconInputSchema } from '../../core/schemas.js';
import { beaconIdParamsSchema } from './path-params.js';
import { defineRoute, type RestRoute } from './rest-route.js';

export const beaconRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'POST',
    url: '/v1/beacons',
    operationId: 'placeBeacon',
    summary: 'Place a beacon (same body as the MCP place_beacon tool)',
    tag: 'beacons',
    schemas: { body: placeBeaconInputSchema },
    success: { status: 201, description: 'The beacon', schema: beaconSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, body }) {
      return { status: 201, payload: await facade.placeBeacon(principal, body) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/beacons',
    operationId: 'listBeacons',
    summary: 'The beacons you own',
    tag: 'beacons',
    schemas: { query: listBeaconsInputSchema },
    success: { status: 200, description: 'One page of beacons', schema: beaconsPageSchema },
    errors: [],
    async handle(facade, { principal, query }) {
      const page = await facade.listBeacons(principal, query);
      return { status: 200, payload: { beacons: page.items, next_cursor: page.next_cursor } };
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/v1/beacons/:id',
    operationId: 'deleteBeacon',
    summary: 'Remove one of your beacons',
    tag: 'beacons',
    schemas: { params: beaconIdParamsSchema },
    success: { status: 204, description: 'Deleted' },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, params }) {
      await facade.deleteBeacon(principal, params.id);
      return { status: 204 };
    },
  }),
];
