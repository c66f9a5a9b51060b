/** `/v1/admin/agents/{agent}/memories`, `/v1/admin/tenant` and `/v1/admin/erasures`: erasure beyond one cell or source, and its receipts (docs/forgetting.md); admin keys scoped to every project. */
import { z } from 'zod';
import {
  eraseAgentInputSchema,
  eraseTenantInputSchema,
  erasureReceiptPageSchema,
  erasureReceiptSchema,
  listErasureReceiptsInputSchema,
  tenantErasureConfirmationSchema,
} from '../../core/erasure-schemas.js';
import { defineRoute, type RestRoute } from './rest-route.js';

export const erasureRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'DELETE',
    url: '/v1/admin/agents/:agent/memories',
    operationId: 'eraseAgentMemories',
    summary: 'Erase everything the agent wrote in your tenant — cells of every version, chunks, restatements, relations, beacons, sources — with every copy of their text; answers the receipt',
    tag: 'admin',
    schemas: { params: eraseAgentInputSchema },
    success: { status: 200, description: 'The receipt: copies removed by kind (empty for an agent that wrote nothing here)', schema: erasureReceiptSchema },
    errors: [],
    async handle(facade, { principal, params }) {
      return { status: 200, payload: await facade.eraseAgentMemories(principal, params) };
    },
  }),
  defineRoute({
    method: 'DELETE',
    url: '/v1/admin/tenant',
    operationId: 'eraseTenant',
    summary: 'Erase your whole tenant and revoke its keys: a first call answers a confirmation token for this key (5 minutes); the call with ?confirmation=<token> erases and answers the receipt',
    tag: 'admin',
    schemas: { query: eraseTenantInputSchema },
    success: { status: 200, description: 'The confirmation token (nothing erased yet), or the receipt', schema: z.union([tenantErasureConfirmationSchema, erasureReceiptSchema]) },
    errors: [],
    async handle(facade, { principal, query }) {
      return { status: 200, payload: await facade.eraseTenant(principal, query) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/admin/erasures',
    operationId: 'listErasureReceipts',
    summary: "Your tenant's erasure receipts (the append-only audit log), newest first: who, which selector, when, counts — never the erased text",
    tag: 'admin',
    schemas: { query: listErasureReceiptsInputSchema },
    success: { status: 200, description: 'One page of receipts', schema: erasureReceiptPageSchema },
    errors: [],
    async handle(facade, { principal, query }) {
      return { status: 200, payload: await facade.listErasureReceipts(principal, query) };
    },
  }),
];
