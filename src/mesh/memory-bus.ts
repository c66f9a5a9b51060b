import { InvalidArgumentError, UnavailableError } from '../core/errors.js';
import type { Bus, BusSubscription, DiffEnvelope } from './bus.js';
import type { BusConnectionEvents } from './bus-connection.js';
import { isValidPublishSubject, isValidSubscribePattern, subjectMatches } from './subject-match.js';

interface MemorySubscriber {
  readonly pattern: string;
  readonly onMessage: (envelope: DiffEnvelope) => void;
}

/**
 * The in-process bus of the embedded mode: NATS subject semantics (wildcards included), delivery
 * on a later turn of the event loop as NATS delivers asynchronously, and each subscriber gets its own copy.
 */
export class MemoryBus implements Bus, BusConnectionEvents {
  readonly kind = 'memory' as const;
  private readonly subscribers = new Set<MemorySubscriber>();
  private closed = false;

  async publish(subject: string, envelope: DiffEnvelope): Promise<void> {
    if (this.closed) throw new UnavailableError('the in-process bus is closed');
    if (!isValidPublishSubject(subject)) throw new InvalidArgumentError(`invalid bus subject: ${subject}`);
    for (const subscriber of this.subscribers) {
      if (!subjectMatches(subscriber.pattern, subject)) continue;
      const copy = structuredClone(envelope);
      setImmediate(() => {
        if (this.subscribers.has(subscriber)) subscriber.onMessage(copy);
      });
    }
  }

  async subscribe(subject: string, onMessage: (envelope: DiffEnvelope) => void): Promise<BusSubscription> {
    if (this.closed) throw new UnavailableError('the in-process bus is closed');
    if (!isValidSubscribePattern(subject)) throw new InvalidArgumentError(`invalid bus subject: ${subject}`);
    const subscriber: MemorySubscriber = { pattern: subject, onMessage };
    this.subscribers.add(subscriber);
    return {
      unsubscribe: async (): Promise<void> => {
        this.subscribers.delete(subscriber);
      },
    };
  }

  isConnected(): boolean {
    return !this.closed;
  }

  onConnectionChange(_listener: (connected: boolean) => void): () => void {
    // An in-process bus never disconnects; closing it is final.
    return () => undefined;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.subscribers.clear();
  }
}
