/**
 * One embedder in a fresh process, for the embed bench: the first load (import, weights, session)
 * and the process's peak RSS after embedding a batch. Prints one JSON line.
 * Usage: node --import tsx bench/embed-probe.ts minilm|use-lite|hash
 */
import { createEmbedder } from '../src/embed/create-embedder.js';
import { syntheticCorpus } from './corpus.js';

const kind = process.argv[2];
if (kind !== 'minilm' && kind !== 'use-lite' && kind !== 'hash') throw new Error(`embed-probe: unknown embedder "${String(kind)}"`);
const started = performance.now();
const embedder = await createEmbedder({ kind });
await embedder.embed(['warm up']);
const loadMs = performance.now() - started;
await embedder.embed(syntheticCorpus(64, 42));
const peakRssBytes = process.resourceUsage().maxRSS * 1024;
await embedder.close();
process.stdout.write(`${JSON.stringify({ kind, modelId: embedder.modelId, loadMs, peakRssBytes })}\n`);
