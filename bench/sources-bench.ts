/**
 * Sources (issue 44), `npm run bench sources`: ingestion throughput of a markdown document with
 * MiniLM in-process and on two workers against embedding its chunks alone
 * (bench/source-ingest-throughput.ts), and recall p50 over sources against plain cells
 * (bench/source-recall-latency.ts). Recall quality of chunked documents is `sources-recall`.
 */
import type { BenchSection } from './harness/section.js';
import { sourceIngestRows } from './source-ingest-throughput.js';
import { sourceRecallLatencyRows } from './source-recall-latency.js';

export async function runSourcesBench(): Promise<BenchSection> {
  return { name: 'sources', rows: [...(await sourceIngestRows()), ...(await sourceRecallLatencyRows())] };
}
