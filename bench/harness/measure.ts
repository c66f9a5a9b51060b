/** Timing for every bench: one call timed, latencies sampled after a warm-up, and the figures taken from them. */
import { percentile } from './section.js';

export interface Timed<T> {
  readonly value: T;
  readonly ms: number;
}

/** Runs `fn` once; its value and its wall time in milliseconds. */
export async function timed<T>(fn: () => Promise<T>): Promise<Timed<T>> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

/** Wall milliseconds of one run of `fn`; with `cpu`, adds this process's CPU milliseconds over it (all of it fn's when one call is in flight). */
export async function elapsedMs(fn: () => Promise<unknown>, cpu?: { ms: number }): Promise<number> {
  const cpuBefore = process.cpuUsage();
  const { ms } = await timed(fn);
  if (cpu !== undefined) {
    const used = process.cpuUsage(cpuBefore);
    cpu.ms += (used.user + used.system) / 1000;
  }
  return ms;
}

export interface Latencies {
  readonly samples: readonly number[];
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  /** The samples' sum: their rate is samples ÷ totalMs. */
  readonly totalMs: number;
}

export function summarise(samples: readonly number[]): Latencies {
  return {
    samples,
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    p99: percentile(samples, 99),
    totalMs: samples.reduce((sum, ms) => sum + ms, 0),
  };
}

export interface SampleOptions {
  /** Calls run first and not measured (caches, JIT, index pages). */
  readonly warmup: number;
  readonly samples: number;
}

/** `warmup` untimed calls of `run`, then `samples` timed ones, in sequence; call numbers run on from the warm-up's. */
export async function sampleLatencies(run: (call: number) => Promise<unknown>, options: SampleOptions): Promise<Latencies> {
  for (let i = 0; i < options.warmup; i += 1) await run(i);
  const samples: number[] = [];
  for (let i = 0; i < options.samples; i += 1) samples.push(await elapsedMs(() => run(options.warmup + i)));
  return summarise(samples);
}

/** Operations per second: `count` done in `ms`. */
export function perSecond(count: number, ms: number): number {
  return count / (ms / 1000);
}

/** The rate of sequential calls whose latencies these are. */
export function sequentialRate(samples: readonly number[]): number {
  return perSecond(samples.length, samples.reduce((sum, ms) => sum + ms, 0));
}

/** Three significant digits (or `digits`): how figures are kept in results. */
export function round(value: number, digits = 3): number {
  return Number(value.toPrecision(digits));
}

/** `decimals` decimal places. */
export function roundTo(value: number, decimals: number): number {
  return Number(value.toFixed(decimals));
}

/** Three decimals: how ratios and millisecond figures are kept in results. */
export function round3(value: number): number {
  return roundTo(value, 3);
}

/** value ÷ baseline to three decimals. */
export function ratio(value: number, baseline: number): number {
  return round3(value / baseline);
}
