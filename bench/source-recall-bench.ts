/**
 * Recall of knowledge (issue 44), `npm run bench sources-recall`: the five documents of
 * bench/fixtures/sources/ ingested as markdown sources (chunked) and, apart, stored whole (one
 * cell each), then every question of bench/fixtures/source-recall-questions.ts recalled (k 5):
 * top-1 and top-5 of the right chunk (a chunk of the section that answers it) and of the right
 * source, per embedder, chunked against whole. BENCH_SOURCES_EMBEDDERS: comma-separated (default
 * hash,minilm,use-lite).
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Embedder } from '../src/embed/embedder.js';
import { SOURCE_DOCUMENTS, SOURCE_QUESTIONS, type SourceDocument } from './fixtures/source-recall-questions.js';
import { benchEmbedder } from './harness/embedders.js';
import { openEngine } from './harness/engine.js';
import { round } from './harness/measure.js';
import type { BenchRow, BenchSection } from './harness/section.js';

const K = 5;
const FIXTURE_DIR = fileURLToPath(new URL('./fixtures/sources/', import.meta.url));

/** Per question, the ranked hits: which document, and which heading path (chunks only). */
type Ranking = readonly { readonly doc: string; readonly path: string | null }[];

export interface SourceRecallScore {
  readonly chunkTop1: number;
  readonly chunkTop5: number;
  readonly sourceTop1: number;
  readonly sourceTop5: number;
}

async function documents(): Promise<{ doc: SourceDocument; text: string }[]> {
  return Promise.all(SOURCE_DOCUMENTS.map(async (doc) => ({ doc, text: await readFile(join(FIXTURE_DIR, `${doc.id}.md`), 'utf8') })));
}

/** Top-1 and top-5 shares of the right chunk (its heading path) and of the right source. */
export function scoreSourceRankings(rankings: readonly Ranking[]): SourceRecallScore {
  let chunkTop1 = 0;
  let chunkTop5 = 0;
  let sourceTop1 = 0;
  let sourceTop5 = 0;
  SOURCE_QUESTIONS.forEach((question, i) => {
    const ranked = rankings[i] ?? [];
    const title = SOURCE_DOCUMENTS.find((doc) => doc.id === question.doc)?.title ?? '';
    const rightChunk = (hit: Ranking[number]): boolean => hit.doc === question.doc && hit.path === `${title} › ${question.section}`;
    if (ranked[0] !== undefined && rightChunk(ranked[0])) chunkTop1 += 1;
    if (ranked.slice(0, K).some(rightChunk)) chunkTop5 += 1;
    if (ranked[0]?.doc === question.doc) sourceTop1 += 1;
    if (ranked.slice(0, K).some((hit) => hit.doc === question.doc)) sourceTop5 += 1;
  });
  const share = (n: number): number => round(n / SOURCE_QUESTIONS.length, 3);
  return { chunkTop1: share(chunkTop1), chunkTop5: share(chunkTop5), sourceTop1: share(sourceTop1), sourceTop5: share(sourceTop5) };
}

/** The documents as markdown sources, chunked, each embedded within the call; every question recalled over knowledge. */
async function chunked(embedder: Embedder): Promise<Ranking[]> {
  const engine = await openEngine(embedder, { sources: { syncChunks: 10_000 } });
  try {
    for (const { doc, text } of await documents()) {
      await engine.facade.ingestSource(engine.principal, { text, format: 'markdown', title: doc.title, source_id: doc.id });
    }
    const rankings: Ranking[] = [];
    for (const question of SOURCE_QUESTIONS) {
      const { results } = await engine.facade.recall(engine.principal, { query: question.question, k: K, kind: 'knowledge' }, { withNodes: true });
      // A chunk's content is its heading path, a blank line, then its text.
      rankings.push(results.map((hit) => ({ doc: hit.source?.source_id ?? '', path: hit.node?.content.split('\n\n', 1)[0] ?? null })));
    }
    return rankings;
  } finally {
    await engine.close();
  }
}

/** The same documents stored whole, one cell each (embedded as one text), every question recalled. */
async function whole(embedder: Embedder): Promise<Ranking[]> {
  const engine = await openEngine(embedder, { config: { restatementSimilarity: null } });
  try {
    const docOf = new Map<string, string>();
    for (const { doc, text } of await documents()) {
      const stored = await engine.facade.store(engine.principal, { content: text, cell_type: 'Context', salience: 0.5 });
      docOf.set(stored.node_id, doc.id);
    }
    const rankings: Ranking[] = [];
    for (const question of SOURCE_QUESTIONS) {
      const { results } = await engine.facade.recall(engine.principal, { query: question.question, k: K });
      rankings.push(results.map((hit) => ({ doc: docOf.get(hit.node_id) ?? '', path: null })));
    }
    return rankings;
  } finally {
    await engine.close();
  }
}

export async function runSourceRecallBench(): Promise<BenchSection> {
  const rows: BenchRow[] = [];
  const kinds = (process.env.BENCH_SOURCES_EMBEDDERS ?? 'hash,minilm,use-lite').split(',').map((kind) => kind.trim());
  const questions = `${SOURCE_QUESTIONS.length} questions over ${SOURCE_DOCUMENTS.length} documents`;
  for (const kind of kinds) {
    const embedder = benchEmbedder(kind, 'BENCH_SOURCES_EMBEDDERS');
    try {
      const split = scoreSourceRankings(await chunked(embedder));
      const single = scoreSourceRankings(await whole(embedder));
      rows.push(
        { metric: `${kind}: chunked, right chunk top-1`, value: split.chunkTop1, unit: 'share', note: questions },
        { metric: `${kind}: chunked, right chunk top-5`, value: split.chunkTop5, unit: 'share' },
        { metric: `${kind}: chunked, right source top-1`, value: split.sourceTop1, unit: 'share', baseline: single.sourceTop1, ratio: single.sourceTop1 === 0 ? 0 : round(split.sourceTop1 / single.sourceTop1, 2), note: 'baseline: stored whole' },
        { metric: `${kind}: chunked, right source top-5`, value: split.sourceTop5, unit: 'share', baseline: single.sourceTop5 },
        { metric: `${kind}: whole, right source top-1`, value: single.sourceTop1, unit: 'share', note: 'a whole document has no chunk to find' },
        { metric: `${kind}: whole, right source top-5`, value: single.sourceTop5, unit: 'share', note: `${SOURCE_DOCUMENTS.length} documents: top-5 holds them all` },
      );
    } finally {
      await embedder.close();
    }
  }
  return { name: 'sources-recall', rows };
}
