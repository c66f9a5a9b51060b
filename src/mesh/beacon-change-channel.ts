import type { Bus, BusSubscription } from './bus.js';
import { subjectToken } from './bus.js';

/**
 * "This agent's beacons changed": lets the replica holding an agent's live stream subscribe to a
 * new beacon's subject at once, whichever replica placed it. Not part of the `Bus` contract: a
 * bus that lacks it leaves the live feed to its periodic re-read. Best effort by design.
 */
export interface BeaconChangeChannel {
  announceBeaconsChanged(tenantId: string, agent: string): Promise<void>;
  onBeaconsChanged(tenantId: string, agent: string, listener: () => void): Promise<BusSubscription>;
}

export function agentBeaconsSubject(tenantId: string, agent: string): string {
  return `hyphae.${subjectToken(tenantId)}.agent.${subjectToken(agent)}.beacons`;
}

export function beaconChangeChannelOf(bus: Bus): BeaconChangeChannel | undefined {
  const candidate = bus as Bus & Partial<BeaconChangeChannel>;
  return typeof candidate.announceBeaconsChanged === 'function' && typeof candidate.onBeaconsChanged === 'function'
    ? (candidate as Bus & BeaconChangeChannel)
    : undefined;
}
