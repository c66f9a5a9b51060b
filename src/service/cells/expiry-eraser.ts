/**
 * The expiry sweep's eraser (docs/expiry.md): expired cells and sources go through the erasure path
 * (docs/forgetting.md) like any delete — every copy of their text, a `deleted` diff without text to
 * each agent that received one, and a receipt whose actor is `system:expiry`.
 */
import { ERASED_CELL_KINDS } from '../erasure/erasure-actor.js';
import type { ErasureActor } from '../erasure/erasure.js';
import type { FacadeContext } from '../facade/facade-context.js';
import type { ExpiredItemEraser } from './expiry-sweep.js';

/** The receipts' actor of the server's own expiry. */
export const EXPIRY_AGENT = 'system:expiry';

export function directExpiryEraser(ctx: Pick<FacadeContext, 'erasure'>): ExpiredItemEraser {
  const actor = (tenantId: string): ErasureActor => ({ tenantId, agent: EXPIRY_AGENT, keyId: null });
  return {
    async cells(tenantId, nodeIds): Promise<number> {
      const { counts } = await ctx.erasure.erase(actor(tenantId), { kind: 'cells', nodeIds, reason: 'expired' });
      return ERASED_CELL_KINDS.reduce((sum, kind) => sum + (counts[kind] ?? 0), 0);
    },

    async source(tenantId, project, sourceId): Promise<void> {
      await ctx.erasure.erase(actor(tenantId), { kind: 'source', project, sourceId });
    },
  };
}
