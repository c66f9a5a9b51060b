import type { Bus } from './bus.js';

/**
 * Connection changes of a bus. Not part of the `Bus` contract: the relay and the live feed use it
 * when a bus offers it, to catch up at once when the bus returns instead of at their next tick.
 */
export interface BusConnectionEvents {
  /** Calls listener with true on (re)connection and false on disconnection; returns the unlisten function. */
  onConnectionChange(listener: (connected: boolean) => void): () => void;
}

export function connectionEventsOf(bus: Bus): BusConnectionEvents | undefined {
  const candidate = bus as Bus & Partial<BusConnectionEvents>;
  return typeof candidate.onConnectionChange === 'function' ? (candidate as Bus & BusConnectionEvents) : undefined;
}
