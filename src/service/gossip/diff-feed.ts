/** The live-push seam: the mesh's live diff feed implements it; without one, subscribeDiffs is UNAVAILABLE. */
import type { Diff } from '../../core/entities.js';
import type { LiveDiffListener, LiveSubscription } from '../memory-facade.js';

export interface DiffFeed {
  /** Calls listener for each new diff addressed to (tenant, agent); afterSeq resumes after an inbox seq. */
  subscribe(tenantId: string, agent: string, listener: LiveDiffListener, afterSeq?: number): Promise<LiveSubscription>;
  /** Calls listener with each diff delivered in the tenant, whoever receives it, as it arrives (live only, best effort). */
  watchTenant(tenantId: string, listener: (envelope: { readonly recipientAgent: string; readonly diff: Diff }) => void): Promise<LiveSubscription>;
}
