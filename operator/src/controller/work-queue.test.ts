import { describe, expect, it } from 'vitest';
import { WorkQueue } from './work-queue.js';

const tick = (ms = 5): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('WorkQueue', () => {
  it('never runs one key concurrently and re-runs a key added while it was processing', async () => {
    let running = 0;
    let maxRunning = 0;
    let runs = 0;
    const q = new WorkQueue(async () => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      runs++;
      await tick(20);
      running--;
    }, { concurrency: 4 });
    q.add('ns/a');
    await tick(2);
    q.add('ns/a');
    q.add('ns/a');
    await tick(100);
    await q.idle();
    expect(maxRunning).toBe(1);
    expect(runs).toBe(2);
  });

  it('deduplicates keys that are already queued', async () => {
    const seen: string[] = [];
    const q = new WorkQueue(async (k) => {
      seen.push(k);
      await tick(10);
    }, { concurrency: 1 });
    q.add('a');
    q.add('b');
    q.add('b');
    q.add('b');
    await tick(50);
    await q.idle();
    expect(seen).toEqual(['a', 'b']);
  });

  it('retries failures with exponential backoff and resets after success', async () => {
    const times: number[] = [];
    const q = new WorkQueue(async () => {
      times.push(Date.now());
      if (times.length < 4) throw new Error('boom');
    }, { baseDelayMs: 10, maxDelayMs: 1000 });
    q.add('k');
    while (times.length < 4) await tick(5);
    await q.idle();
    expect(q.backoffFor(1)).toBe(10);
    expect(q.backoffFor(3)).toBe(40);
    expect(q.backoffFor(20)).toBe(1000);
    expect(q.failuresOf('k')).toBe(0);
    const gaps = times.slice(1).map((t, i) => t - (times[i] as number));
    expect(gaps[2]).toBeGreaterThanOrEqual(gaps[0] as number);
  });

  it('shutdown drops queued work and waits for in-flight work', async () => {
    let done = 0;
    const q = new WorkQueue(async () => {
      await tick(30);
      done++;
    }, { concurrency: 1 });
    q.add('a');
    q.add('b');
    await tick(2);
    await q.shutdown();
    expect(done).toBe(1);
    q.add('c');
    expect(q.depth).toBe(0);
  });
});
