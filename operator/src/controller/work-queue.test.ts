// The work queue's guarantees, driven step by step: each run of `process` waits on a gate the
// test opens, and retries are scheduled on a ManualClock, so the assertions are about order and
// the computed schedule, never about how much wall time passed.
import { describe, expect, it } from 'vitest';
import { ManualClock } from './manual-clock.js';
import { WorkQueue } from './work-queue.js';

interface Gate {
  key: string;
  open: (outcome?: Error) => void;
}

/** A process function whose every call blocks until the test opens its gate (or fails it). */
function gatedProcess(): { process: (key: string) => Promise<void>; calls: Gate[]; running: () => number; maxRunning: () => number } {
  const calls: Gate[] = [];
  let running = 0;
  let maxRunning = 0;
  const process = (key: string): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      calls.push({
        key,
        open: (err) => {
          running--;
          if (err) reject(err);
          else resolve();
        },
      });
    });
  return { process, calls, running: () => running, maxRunning: () => maxRunning };
}

/** Let the queue's promise callbacks (run → finally → pump) complete. */
const drainMicrotasks = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve();
};

describe('WorkQueue', () => {
  it('never runs one key concurrently and re-runs a key added while it was processing, once', async () => {
    const g = gatedProcess();
    const q = new WorkQueue(g.process, { concurrency: 4 });
    q.add('ns/a');
    expect(g.calls.map((c) => c.key)).toEqual(['ns/a']);
    q.add('ns/a');
    q.add('ns/a');
    // Still one run: the re-adds only mark the key dirty.
    expect(g.calls).toHaveLength(1);
    g.calls[0]?.open();
    await drainMicrotasks();
    expect(g.calls.map((c) => c.key)).toEqual(['ns/a', 'ns/a']);
    g.calls[1]?.open();
    await q.idle();
    expect(g.calls).toHaveLength(2);
    expect(g.maxRunning()).toBe(1);
  });

  it('runs different keys in parallel up to the concurrency limit', async () => {
    const g = gatedProcess();
    const q = new WorkQueue(g.process, { concurrency: 2 });
    for (const k of ['a', 'b', 'c']) q.add(k);
    expect(g.calls.map((c) => c.key)).toEqual(['a', 'b']);
    expect(q.depth).toBe(1);
    g.calls[0]?.open();
    await drainMicrotasks();
    expect(g.calls.map((c) => c.key)).toEqual(['a', 'b', 'c']);
    g.calls[1]?.open();
    g.calls[2]?.open();
    await q.idle();
    expect(g.maxRunning()).toBe(2);
  });

  it('deduplicates keys that are already queued', async () => {
    const g = gatedProcess();
    const q = new WorkQueue(g.process, { concurrency: 1 });
    q.add('a');
    q.add('b');
    q.add('b');
    q.add('b');
    expect(q.depth).toBe(1);
    g.calls[0]?.open();
    await drainMicrotasks();
    g.calls[1]?.open();
    await q.idle();
    expect(g.calls.map((c) => c.key)).toEqual(['a', 'b']);
  });

  it('retries a failing key on the exponential schedule, not before each delay is due, and resets after success', async () => {
    const clock = new ManualClock();
    const g = gatedProcess();
    const q = new WorkQueue(g.process, { baseDelayMs: 10, maxDelayMs: 1000, clock });
    const fail = async (): Promise<void> => {
      g.calls.at(-1)?.open(new Error('boom'));
      await q.idle();
    };
    q.add('k');
    await fail();
    expect(clock.delays).toEqual([10]);
    expect(q.failuresOf('k')).toBe(1);

    clock.advance(9);
    expect(g.calls).toHaveLength(1); // not due yet
    clock.advance(1);
    expect(g.calls).toHaveLength(2);
    await fail();
    clock.advance(19);
    expect(g.calls).toHaveLength(2);
    clock.advance(1);
    expect(g.calls).toHaveLength(3);
    await fail();
    expect(clock.delays).toEqual([10, 20, 40]);
    expect(q.failuresOf('k')).toBe(3);

    clock.advance(40);
    g.calls.at(-1)?.open();
    await q.idle();
    expect(q.failuresOf('k')).toBe(0);
    expect(clock.pendingCount()).toBe(0);

    // The next failure starts the schedule over.
    q.add('k');
    await fail();
    expect(clock.delays).toEqual([10, 20, 40, 10]);
    await q.shutdown();
  });

  it('caps the retry delay at maxDelayMs', async () => {
    const clock = new ManualClock();
    const q = new WorkQueue(() => Promise.reject(new Error('boom')), { baseDelayMs: 10, maxDelayMs: 25, clock });
    q.add('k');
    for (let i = 0; i < 4; i++) {
      await q.idle();
      clock.advance(clock.delays.at(-1) as number);
    }
    await q.idle();
    expect(clock.delays).toEqual([10, 20, 25, 25, 25]);
    expect(q.backoffFor(40)).toBe(25);
    await q.shutdown();
  });

  it('requeues a key after the delay its run asked for, and a later addAfter replaces an earlier one', async () => {
    const clock = new ManualClock();
    let runs = 0;
    const q = new WorkQueue(
      async () => {
        runs++;
        return runs === 1 ? { requeueAfterMs: 500 } : undefined;
      },
      { clock },
    );
    q.add('k');
    await q.idle();
    expect(clock.delays).toEqual([500]);
    clock.advance(499);
    expect(runs).toBe(1);
    clock.advance(1);
    await q.idle();
    expect(runs).toBe(2);

    q.addAfter('k', 100);
    q.addAfter('k', 50);
    expect(clock.pendingCount()).toBe(1);
    clock.advance(50);
    await q.idle();
    expect(runs).toBe(3);
    clock.advance(100);
    await q.idle();
    expect(runs).toBe(3);
  });

  it('shutdown drops queued work and pending retries, and waits for in-flight work', async () => {
    const clock = new ManualClock();
    const g = gatedProcess();
    const q = new WorkQueue(g.process, { concurrency: 1, clock });
    q.add('retry');
    g.calls[0]?.open(new Error('boom'));
    await q.idle();
    expect(clock.pendingCount()).toBe(1);

    q.add('a');
    q.add('b');
    let stopped = false;
    const stopping = q.shutdown().then(() => (stopped = true));
    await drainMicrotasks();
    expect(stopped).toBe(false); // 'a' is still running
    expect(clock.pendingCount()).toBe(0);
    g.calls[1]?.open();
    await stopping;
    expect(g.calls.map((c) => c.key)).toEqual(['retry', 'a']);
    q.add('c');
    expect(q.depth).toBe(0);
    expect(g.calls).toHaveLength(2);
  });
});
