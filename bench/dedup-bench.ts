/**
 * Restatements (issue 17): (1) the confusion counts behind each embedder's default
 * similarity, on bench/near-duplicate-fixture.ts — restatements that must merge (TP/FN), distinct
 * statements that must not (FP/TN), and same-words contradictions merged — at the default and its
 * neighbours; (2) what the check costs a store: facade stores with it on against the same stores
 * with it off, interleaved, on a native PostgreSQL 18 + pgvector table of 10k and 100k cells
 * bulk-loaded by SQL (the cells all of the stores' tenant, project and type: every one a candidate).
 *
 * BENCH_DEDUP_CELLS: comma-separated table sizes (default 10000,100000); BENCH_DEDUP_PARTS:
 * `fixture`, `cost` or both (default). The cost part uses the hash embedder so the embedding does
 * not drown the check, with a similarity (0.99) the synthetic stores never reach: both sides write
 * every cell, and the difference is the lookup.
 */
import type { Principal } from '../src/core/principal.js';
import type { Embedder } from '../src/embed/embedder.js';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { MiniLmEmbedder } from '../src/embed/minilm-embedder.js';
import { UseLiteEmbedder } from '../src/embed/use-lite-embedder.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../src/service/index.js';
import { defaultRestatementSimilarityFor } from '../src/service/facade-config.js';
import { restatementContrast } from '../src/service/cells/restatement-contrast.js';
import { openPgDb } from '../src/store/pg-driver.js';
import type { RealPostgres } from '../test/support/real-postgres.js';
import { elapsedMs, round } from './harness/measure.js';
import { percentile, type BenchRow, type BenchSection } from './harness/section.js';
import { syntheticCorpus } from './corpus.js';
import { CONTRADICTION_PAIRS, DISTINCT_PAIRS, RESTATEMENT_PAIRS, type StatementPair } from './near-duplicate-fixture.js';
import { loadCellDatabase, startBenchPostgres } from './harness/postgres.js';

const TENANT = 'bench';
const PROJECT = 'default';
const MEASURED_STORES = 400;
const WARMUP_STORES = 40;
const COST_SIMILARITY = 0.99;

interface ScoredPair {
  readonly similarity: number;
  readonly contrast: boolean;
}

async function scorePairs(embedder: Embedder, pairs: readonly StatementPair[]): Promise<ScoredPair[]> {
  const scored: ScoredPair[] = [];
  // One text per call: the vectors a store computes (minilm's int8 batches shift them slightly).
  for (const pair of pairs) {
    const [[a], [b]] = [await embedder.embed([pair.first]), await embedder.embed([pair.second])];
    let dot = 0;
    for (let i = 0; i < (a as Float32Array).length; i++) dot += ((a as Float32Array)[i] ?? 0) * ((b as Float32Array)[i] ?? 0);
    scored.push({ similarity: dot, contrast: restatementContrast(pair.first, pair.second) !== null });
  }
  return scored;
}

/** Merged as the store decides: similar enough, and (with the guard) no contrast in numbers or negation. */
function merged(pairs: readonly ScoredPair[], threshold: number, guard: boolean): number {
  return pairs.filter((p) => p.similarity >= threshold && !(guard && p.contrast)).length;
}

async function fixtureRows(rows: BenchRow[]): Promise<void> {
  const embedders: readonly { embedder: Embedder; thresholds: readonly number[] }[] = [
    { embedder: new MiniLmEmbedder(), thresholds: [0.75, 0.8, 0.85, 0.9, 0.95] },
    { embedder: new UseLiteEmbedder(), thresholds: [0.75, 0.8, 0.85, 0.9, 0.95] },
    { embedder: new HashEmbedder(), thresholds: [0.4, 0.5, 0.55, 0.6, 0.7] },
  ];
  for (const { embedder, thresholds } of embedders) {
    const [same, distinct, contradictions] = [
      await scorePairs(embedder, RESTATEMENT_PAIRS),
      await scorePairs(embedder, DISTINCT_PAIRS),
      await scorePairs(embedder, CONTRADICTION_PAIRS),
    ];
    const chosen = defaultRestatementSimilarityFor(embedder.modelId);
    const [lowestSame, highestDistinct] = [Math.min(...same.map((p) => p.similarity)), Math.max(...distinct.map((p) => p.similarity))];
    rows.push({
      metric: `${embedder.modelId}: most similar distinct pair`,
      value: round(highestDistinct),
      unit: 'cosine',
      note: `least similar restatement ${round(lowestSame)}; the default is the lowest similarity swept at least 0.05 above the most similar distinct pair`,
    });
    for (const threshold of thresholds) {
      const tp = merged(same, threshold, true);
      const fp = merged(distinct, threshold, true);
      const isDefault = threshold === chosen;
      rows.push({
        metric: `${embedder.modelId} @ ${threshold}${isDefault ? ' (default)' : ''}: restatements merged`,
        value: tp,
        unit: `of ${same.length}`,
        note:
          `TP ${tp} FN ${same.length - tp} · distinct: FP ${fp} TN ${distinct.length - fp} · contradictions merged ${merged(contradictions, threshold, true)}/${contradictions.length}` +
          ` (similarity alone, no number/negation guard: TP ${merged(same, threshold, false)} FP ${merged(distinct, threshold, false)} contradictions ${merged(contradictions, threshold, false)})`,
      });
    }
    if (chosen === null) rows.push({ metric: `${embedder.modelId}: default`, value: 0, unit: 'off', note: 'no threshold merges most restatements without merging distinct statements; set HYPHAE_DEDUP_SIMILARITY to enable' });
    await embedder.close();
  }
}

async function costAt(server: RealPostgres, cells: number, rows: BenchRow[]): Promise<void> {
  const embedder = new HashEmbedder();
  const corpus = syntheticCorpus(cells + 2 * (MEASURED_STORES + WARMUP_STORES), 42);
  const { url, indexMs } = await loadCellDatabase(server, `dedup_${cells}`, embedder, corpus.slice(0, cells));
  const db = await openPgDb({ url });
  const facades: ManagedMemoryFacade[] = [];
  try {
    const on = createMemoryFacade({ db, embedder, config: { hitFlushIntervalMs: 3_600_000, restatementSimilarity: COST_SIMILARITY } });
    const off = createMemoryFacade({ db, embedder, config: { hitFlushIntervalMs: 3_600_000, restatementSimilarity: null } });
    facades.push(on, off);
    const key = await on.keyAdmin.createKey({ tenant: TENANT, agent: 'bench', default_project: PROJECT, projects: [PROJECT] });
    const principal: Principal = await on.authenticate(key.key);
    const texts = corpus.slice(cells);
    const onMs: number[] = [];
    const offMs: number[] = [];
    let reinforced = 0;
    // Interleaved, who goes first alternating, so both see the same table, cache and background load.
    for (let i = 0; i < MEASURED_STORES + WARMUP_STORES; i++) {
      const store = async (facade: ManagedMemoryFacade, content: string, into: number[]): Promise<void> => {
        const ms = await elapsedMs(async () => {
          if ((await facade.store(principal, { content, cell_type: 'Fact', salience: 0.5 })).reinforced) reinforced += 1;
        });
        if (i >= WARMUP_STORES) into.push(ms);
      };
      const pair = [() => store(on, texts[2 * i] as string, onMs), () => store(off, texts[2 * i + 1] as string, offMs)];
      for (const run of i % 2 === 0 ? pair : [...pair].reverse()) await run();
    }
    const label = `native ${cells / 1000}k`;
    const [p50, p99, offP50, offP99] = [percentile(onMs, 50), percentile(onMs, 99), percentile(offMs, 50), percentile(offMs, 99)];
    const mean = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
    rows.push({ metric: `${label}: HNSW index build after bulk load`, value: round(indexMs / 1000), unit: 's', note: `${cells} hash vectors, one tenant, project and type` });
    rows.push({
      metric: `${label}: store p50, near-duplicate check on`,
      value: round(p50),
      unit: 'ms',
      baseline: round(offP50),
      ratio: round(p50 / offP50),
      note: `baseline: the same stores with the check off, interleaved; ${MEASURED_STORES} each after ${WARMUP_STORES} warm-up; hash embedder; ${reinforced} reinforced`,
    });
    rows.push({ metric: `${label}: store p99, near-duplicate check on`, value: round(p99), unit: 'ms', baseline: round(offP99), ratio: round(p99 / offP99) });
    rows.push({ metric: `${label}: store mean, near-duplicate check on`, value: round(mean(onMs)), unit: 'ms', baseline: round(mean(offMs)), ratio: round(mean(onMs) / mean(offMs)) });
  } finally {
    for (const facade of facades) await facade.close();
    await db.close();
  }
}

export async function runDedupBench(): Promise<BenchSection> {
  const parts = (process.env.BENCH_DEDUP_PARTS ?? 'fixture,cost').split(',');
  const sizes = (process.env.BENCH_DEDUP_CELLS ?? '10000,100000').split(',').map(Number);
  if (sizes.some((n) => !Number.isInteger(n) || n < 100)) throw new Error('BENCH_DEDUP_CELLS must be table sizes ≥ 100, comma-separated');
  const rows: BenchRow[] = [];
  if (parts.includes('fixture')) await fixtureRows(rows);
  if (parts.includes('cost')) {
    const server = await startBenchPostgres();
    try {
      for (const cells of sizes) await costAt(server, cells, rows);
    } finally {
      await server.close();
    }
  }
  return { name: 'near-duplicate reinforcement (fixture confusion; store cost on vs off)', rows };
}
