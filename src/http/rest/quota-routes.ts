/** `GET /v1/admin/quotas`: what the tenant and its agents hold against each quota; the facade admits the admin role only. */
import { quotaUsageListSchema } from '../../core/console-schemas.js';
import { defineRoute, type RestRoute } from './rest-route.js';

export const quotaRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'GET',
    url: '/v1/admin/quotas',
    operationId: 'quotaUsage',
    summary: "Quotas in use: cells of the tenant, each agent's live beacons and open sessions, this key's and this process's live streams",
    tag: 'admin',
    schemas: {},
    success: { status: 200, description: 'Each quota with what is used and its limit', schema: quotaUsageListSchema },
    errors: [],
    async handle(facade, { principal }) {
      return { status: 200, payload: { quotas: await facade.quotaUsage(principal) } };
    },
  }),
];
