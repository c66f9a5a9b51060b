/** What the sources tests share: an embedder behind a gate, and a markdown document of many sections. */
import type { Embedder } from '../../src/embed/embedder.js';
import { UnavailableError } from '../../src/core/errors.js';

/**
 * An embedder behind a gate the test holds and releases: while held, embed calls wait (a slow or
 * stopped embedder, an ingestion that stays pending); with `failing`, every call fails as a down
 * embedder does. `calls` counts the calls made.
 */
export class GatedEmbedder implements Embedder {
  readonly modelId: string;
  readonly dimension: number;
  calls = 0;
  private open = true;
  private waiting: (() => void)[] = [];
  constructor(
    private readonly inner: Embedder,
    private readonly failing = false,
  ) {
    this.modelId = inner.modelId;
    this.dimension = inner.dimension;
  }
  close(): Promise<void> {
    this.release();
    return Promise.resolve();
  }
  hold(): void {
    this.open = false;
  }
  release(): void {
    this.open = true;
    for (const wake of this.waiting.splice(0)) wake();
  }
  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    this.calls += 1;
    while (!this.open) await new Promise<void>((resolve) => this.waiting.push(resolve));
    if (this.failing) throw new UnavailableError('the embedder is down');
    return this.inner.embed(texts);
  }
}

/** A markdown document of `sections` sections, each long enough to be a chunk or more, with `marker` in every paragraph. */
export function handbook(marker: string, sections: number): string {
  const parts = [`# Handbook ${marker}`];
  for (let s = 0; s < sections; s += 1) {
    parts.push(`## Section ${s}`);
    parts.push(Array.from({ length: 12 }, (_, i) => `The ${marker} settlement rule ${s}.${i} keeps ledgers balanced across regions.`).join(' '));
  }
  return parts.join('\n\n');
}
