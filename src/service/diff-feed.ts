/** The live-push seam: the bus engineer's relay/subscriber implements it; without one, subscribeDiffs is UNAVAILABLE. */
import type { LiveDiffListener, LiveSubscription } from './memory-facade.js';

export interface DiffFeed {
  /** Calls listener for each new diff addressed to (tenant, agent); afterSeq resumes after an inbox seq. */
  subscribe(tenantId: string, agent: string, listener: LiveDiffListener, afterSeq?: number): Promise<LiveSubscription>;
}
