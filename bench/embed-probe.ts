/**
 * One embedder in a fresh process, for the embed bench: the first load (import, weights, session)
 * and the process's peak RSS after embedding a batch. Prints one JSON line.
 * Usage: node --import tsx bench/embed-probe.ts minilm|minilm-int8|use-lite|hash
 */
import { createEmbedder } from '../src/embed/create-embedder.js';
import { MINILM_INT8_MODEL_ID } from '../src/embed/minilm-embedder.js';
import { syntheticCorpus } from './corpus.js';

const argument = process.argv[2];
if (argument !== 'minilm' && argument !== 'minilm-int8' && argument !== 'use-lite' && argument !== 'hash') throw new Error(`embed-probe: unknown embedder "${String(argument)}"`);
const kind = argument === 'minilm-int8' ? 'minilm' : argument;
const started = performance.now();
const embedder = await createEmbedder({ kind, ...(argument === 'minilm-int8' ? { model: MINILM_INT8_MODEL_ID } : {}) });
await embedder.embed(['warm up']);
const loadMs = performance.now() - started;
await embedder.embed(syntheticCorpus(64, 42));
const peakRssBytes = process.resourceUsage().maxRSS * 1024;
await embedder.close();
process.stdout.write(`${JSON.stringify({ kind, modelId: embedder.modelId, loadMs, peakRssBytes })}\n`);
