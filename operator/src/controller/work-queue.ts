// A keyed work queue with the guarantees controllers need: a key is never processed by two
// workers at once, a key added while queued is deduplicated, a key added while being processed
// runs again afterwards, and failures retry with per-key exponential backoff.
import type { Clock } from './clock.js';
import { systemClock } from './clock.js';

export interface WorkQueueOptions {
  concurrency?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
  onDepthChange?: (depth: number) => void;
  /** Schedules retries and requeues; the system clock unless a test drives time itself. */
  clock?: Clock;
}

export type ProcessResult = { requeueAfterMs?: number } | void;

export class WorkQueue {
  private readonly queue: string[] = [];
  private readonly queued = new Set<string>();
  private readonly processing = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, () => void>();
  private readonly idleWaiters: Array<() => void> = [];
  private active = 0;
  private stopped = false;
  private readonly concurrency: number;
  private readonly baseDelayMs: number;
  private readonly maxDelayMs: number;
  private readonly clock: Clock;

  constructor(
    private readonly process: (key: string) => Promise<ProcessResult>,
    private readonly options: WorkQueueOptions = {},
  ) {
    this.concurrency = options.concurrency ?? 2;
    this.baseDelayMs = options.baseDelayMs ?? 200;
    this.maxDelayMs = options.maxDelayMs ?? 60_000;
    this.clock = options.clock ?? systemClock;
  }

  get depth(): number {
    return this.queue.length;
  }

  add(key: string): void {
    if (this.stopped) return;
    if (this.processing.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.queued.has(key)) return;
    this.queued.add(key);
    this.queue.push(key);
    this.changed();
    this.pump();
  }

  addAfter(key: string, delayMs: number): void {
    if (this.stopped) return;
    this.timers.get(key)?.();
    this.timers.set(
      key,
      this.clock.after(delayMs, () => {
        this.timers.delete(key);
        this.add(key);
      }),
    );
  }

  /** Retry delay for the n-th consecutive failure of a key: base * 2^(n-1), capped. */
  backoffFor(failures: number): number {
    return Math.min(this.baseDelayMs * 2 ** Math.max(0, failures - 1), this.maxDelayMs);
  }

  failuresOf(key: string): number {
    return this.failures.get(key) ?? 0;
  }

  /** Resolves when nothing is queued or running. */
  idle(): Promise<void> {
    if (this.active === 0 && this.queue.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** Stop taking work, drop what is queued, and wait for in-flight keys to finish. */
  async shutdown(): Promise<void> {
    this.stopped = true;
    for (const cancel of this.timers.values()) cancel();
    this.timers.clear();
    this.queue.length = 0;
    this.queued.clear();
    this.dirty.clear();
    this.changed();
    await this.idle();
  }

  private pump(): void {
    while (!this.stopped && this.active < this.concurrency && this.queue.length > 0) {
      const key = this.queue.shift() as string;
      this.queued.delete(key);
      this.processing.add(key);
      this.active++;
      this.changed();
      void this.run(key);
    }
  }

  private async run(key: string): Promise<void> {
    try {
      const result = await this.process(key);
      this.failures.delete(key);
      if (result?.requeueAfterMs !== undefined) this.addAfter(key, result.requeueAfterMs);
    } catch {
      const n = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, n);
      this.addAfter(key, this.backoffFor(n));
    } finally {
      this.processing.delete(key);
      this.active--;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
      if (this.active === 0 && this.queue.length === 0) for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  private changed(): void {
    this.options.onDepthChange?.(this.queue.length);
  }
}
