/** The live-push seam: the mesh's live diff feed implements it; without one, subscribeDiffs is UNAVAILABLE. */
import type { LiveDiffListener, LiveSubscription } from './memory-facade.js';

export interface DiffFeed {
  /** Calls listener for each new diff addressed to (tenant, agent); afterSeq resumes after an inbox seq. */
  subscribe(tenantId: string, agent: string, listener: LiveDiffListener, afterSeq?: number): Promise<LiveSubscription>;
}
