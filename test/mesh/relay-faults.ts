/** Fault injection and hand-driven timers for outbox relay tests (the bus underneath is the real MemoryBus). */
import { UnavailableError } from '../../src/core/errors.js';
import type { Bus, DiffEnvelope } from '../../src/mesh/bus.js';
import type { MemoryBus } from '../../src/mesh/memory-bus.js';
import type { RelayTimers } from '../../src/mesh/outbox-relay.js';

/** The in-process bus, except that publishes `failing` picks are refused as an unreachable NATS would. */
export function busFailingWhen(inner: MemoryBus, failing: (envelope: DiffEnvelope) => boolean): Bus {
  return {
    kind: inner.kind,
    publish: async (subject, envelope) => {
      if (failing(envelope)) throw new UnavailableError('injected publish failure');
      await inner.publish(subject, envelope);
    },
    subscribe: (subject, onMessage) => inner.subscribe(subject, onMessage),
    isConnected: () => true,
    close: () => inner.close(),
  };
}

/** The in-process bus, except that publishes wait for `before(envelope)` first (to hold a claim open, or crash in it). */
export function busWaitingOn(inner: MemoryBus, before: (envelope: DiffEnvelope) => Promise<void>): Bus {
  return {
    kind: inner.kind,
    publish: async (subject, envelope) => {
      await before(envelope);
      await inner.publish(subject, envelope);
    },
    subscribe: (subject, onMessage) => inner.subscribe(subject, onMessage),
    isConnected: () => true,
    close: () => inner.close(),
  };
}

interface ScheduledTimer {
  readonly fn: () => void;
  readonly delayMs: number;
  state: 'pending' | 'cleared' | 'fired';
}

/** Timers that fire only when the test says so; every scheduled delay is recorded in order. */
export class ManualTimers implements RelayTimers {
  readonly scheduled: ScheduledTimer[] = [];

  set(fn: () => void, delayMs: number): unknown {
    const timer: ScheduledTimer = { fn, delayMs, state: 'pending' };
    this.scheduled.push(timer);
    return timer;
  }

  clear(handle: unknown): void {
    const timer = handle as ScheduledTimer | undefined;
    if (timer?.state === 'pending') timer.state = 'cleared';
  }

  pending(): ScheduledTimer[] {
    return this.scheduled.filter((timer) => timer.state === 'pending');
  }

  /** Fires the one pending timer (a relay keeps at most one). */
  fire(): void {
    const [timer, ...others] = this.pending();
    if (timer === undefined || others.length > 0) throw new Error(`expected one pending timer, found ${others.length + (timer ? 1 : 0)}`);
    timer.state = 'fired';
    timer.fn();
  }
}
