/** Small shared words of erasure: who a principal is as an erasure's actor, and which receipt kinds are cells. */
import type { Principal } from '../../core/principal.js';
import type { ErasureActor } from './erasure.js';

/** The receipt kinds that count cells: current ones, superseded versions, source chunks, promoted copies and scene summaries. */
export const ERASED_CELL_KINDS = ['cells', 'versions', 'chunks', 'copies'] as const;

export function erasureActor(principal: Principal): ErasureActor {
  return { tenantId: principal.tenantId, agent: principal.agent, keyId: principal.keyId };
}
