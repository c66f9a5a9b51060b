import type { Diff } from '../core/entities.js';

/** A diff addressed to one inbox, as it travels on the bus. */
export interface DiffEnvelope {
  readonly tenantId: string;
  readonly recipientAgent: string;
  readonly diff: Diff;
}

export interface BusSubscription {
  unsubscribe(): Promise<void>;
}

/**
 * Publish/subscribe of diffs. Subjects are `hyphae.<tenant>.beacon.<beacon_id>` on NATS; the
 * in-process bus of the embedded mode keeps the same subjects and semantics.
 */
export interface Bus {
  readonly kind: 'memory' | 'nats';
  publish(subject: string, envelope: DiffEnvelope): Promise<void>;
  subscribe(subject: string, onMessage: (envelope: DiffEnvelope) => void): Promise<BusSubscription>;
  isConnected(): boolean;
  close(): Promise<void>;
}

export function beaconSubject(tenantId: string, beaconId: string): string {
  return `hyphae.${subjectToken(tenantId)}.beacon.${beaconId}`;
}

/** Every beacon subject of one tenant: the live feed's one subscription per tenant. */
export function tenantBeaconsPattern(tenantId: string): string {
  return `hyphae.${subjectToken(tenantId)}.beacon.*`;
}

/** NATS subject tokens may not contain '.', '*', '>' or whitespace; tenant ids are escaped. */
function subjectToken(value: string): string {
  return value.replace(/[.*>\s%]/g, (ch) => `%${ch.charCodeAt(0).toString(16).padStart(2, '0')}`);
}
