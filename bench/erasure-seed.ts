/**
 * The erasure bench's fixture (bench/erasure-bench.ts): one agent's cells bulk-loaded by SQL, and a
 * diff about each in `fanout` of the recipients' inboxes, written through the store layer as gossip
 * writes them (sequence numbers allocated, preview = the cell's text), then the tables analysed.
 */
import { randomUUID } from 'node:crypto';
import type { Embedder } from '../src/embed/embedder.js';
import type { Db } from '../src/store/db.js';
import { allocateInboxSeqs, insertInboxDiffs, type NewDiff } from '../src/store/diff-repository.js';
import { analyzeMemoryTables } from '../src/store/statistics-repository.js';
import { syntheticCorpus } from './corpus.js';
import { BULK_PROJECT, BULK_TENANT, bulkLoad } from './harness/bulk-load.js';

const CORPUS_SEED = 48;
/** Diffs one insert statement writes. */
const DIFF_BATCH = 500;

export interface ErasedAgentSeed {
  readonly agent: string;
  readonly cells: number;
  /** Inboxes each cell's diff sits in. */
  readonly fanout: number;
  /** The recipients, each with the beacon its diffs name. */
  readonly recipients: readonly { readonly agent: string; readonly beaconId: string }[];
}

/** Seeds the agent's cells and their diffs into the bench tenant; answers how many diffs were written. */
export async function seedErasedAgent(db: Db, embedder: Embedder, seed: ErasedAgentSeed): Promise<{ diffs: number }> {
  const texts = syntheticCorpus(seed.cells, CORPUS_SEED);
  await bulkLoad(db, 'cells', texts, await embedder.embed(texts));
  // bulkLoad writes every cell as agent `loader`; the tenant holds no other cells yet.
  await db.query(`UPDATE cells SET source_agent = $2 WHERE tenant_id = $1 AND source_agent = 'loader'`, [BULK_TENANT, seed.agent]);
  const cells = (await db.query<{ node_id: string; content: string }>(`SELECT node_id::text AS node_id, content FROM cells WHERE tenant_id = $1 AND source_agent = $2 ORDER BY node_id`, [BULK_TENANT, seed.agent])).rows;
  const held = seed.recipients.map(() => [] as { node_id: string; content: string }[]);
  cells.forEach((cell, i) => {
    for (let j = 0; j < seed.fanout; j++) held[(i * seed.fanout + j) % seed.recipients.length]?.push(cell);
  });
  let diffs = 0;
  for (const [r, recipient] of seed.recipients.entries()) {
    const inbox = held[r] ?? [];
    for (let start = 0; start < inbox.length; start += DIFF_BATCH) {
      const batch = inbox.slice(start, start + DIFF_BATCH);
      await db.transaction(async (tx) => {
        const last = await allocateInboxSeqs(tx, BULK_TENANT, recipient.agent, batch.length);
        const rows: NewDiff[] = batch.map((cell, k) => ({
          diffId: randomUUID(),
          seq: last - batch.length + 1 + k,
          op: 'created',
          nodeId: cell.node_id,
          beaconId: recipient.beaconId,
          similarity: 0.5,
          cellType: 'Fact',
          salience: 0.5,
          sourceAgent: seed.agent,
          project: BULK_PROJECT,
          sceneId: null,
          preview: cell.content,
          supersedes: null,
          sourceId: null,
        }));
        await insertInboxDiffs(tx, BULK_TENANT, recipient.agent, rows);
      });
      diffs += batch.length;
    }
  }
  await analyzeMemoryTables(db);
  return { diffs };
}
