/**
 * Embeds the chunks of sources accepted for the background (docs/sources.md, "Ingestion status"):
 * it takes an ingestion's lease, embeds its drafts a batch at a time — renewing the lease with
 * each batch — then swaps them in as chunk cells. A process that stops leaves its lease to expire;
 * any process's sweep then takes the ingestion over and resumes from the drafts already embedded.
 * After `maxAttempts` claims it is marked failed instead: nothing stays `indexing` forever.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_CONFIG } from '../../core/config.js';
import { HyphaeError } from '../../core/errors.js';
import type { Embedder } from '../../embed/embedder.js';
import type { WrittenDiff } from '../../mesh/diff-writer.js';
import type { Db, Queryable } from '../../store/db.js';
import { claimIngestion, countDraftsToEmbed, draftsToEmbed, dueIngestions, failIngestion, saveDraftEmbeddings } from '../../store/source-ingestion-repository.js';
import { lockIngestion, lockSourceKey, type IngestionRow } from '../../store/source-repository.js';
import { toVectorParam } from '../../store/vector-param.js';
import { embedChunkTexts } from './source-embedding.js';

export interface SourceIngestionConfig {
  /** A source of more UTF-8 bytes is refused (TOO_LARGE) before anything is written. */
  readonly maxBytes: number;
  /** A source of at most this many chunks is embedded within the call and searchable when it returns; a larger one in the background. */
  readonly syncChunks: number;
  /** How long a claim holds an ingestion without renewal; a process that stopped loses it after this. */
  readonly leaseMs: number;
  /** How often each process looks for ingestions no live lease holds. */
  readonly sweepMs: number;
  /** Claims of one ingestion at most; the next due sweep marks it failed. */
  readonly maxAttempts: number;
  /** Chunks embedded per batch (and per lease renewal). */
  readonly embedBatch: number;
  /** Batches in flight at once: with embedding workers they spread over the workers. */
  readonly embedConcurrency: number;
  /** Queued or indexing ingestions one tenant may have; one more background ingestion is RATE_LIMITED. */
  readonly pendingMax: number;
  /** UTF-8 bytes one tenant's queued or indexing ingestions may hold; past it a background ingestion is RATE_LIMITED. */
  readonly pendingMaxBytes: number;
}

export const DEFAULT_SOURCE_INGESTION_CONFIG: SourceIngestionConfig = {
  ...DEFAULT_CONFIG.sources,
  leaseMs: 60_000,
  sweepMs: 5_000,
  maxAttempts: 3,
  embedBatch: 16,
};

export interface SourceIngestionRunnerDeps {
  readonly db: Db;
  readonly embedder: Embedder;
  readonly clock: () => Date;
  readonly config: SourceIngestionConfig;
  /** The swap transaction's work: chunk cells in, the source served, its diffs written. */
  swap(tx: Queryable, ingestion: IngestionRow, now: Date): Promise<WrittenDiff[]>;
  /** After the swap commits. */
  committed(diffs: readonly WrittenDiff[]): void;
  onError(error: unknown): void;
}

export class SourceIngestionRunner {
  private readonly owner = `ingest-${randomUUID()}`;
  private readonly running = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(private readonly deps: SourceIngestionRunnerDeps) {}

  /** Sweeps every sweepMs (first after one interval): a restarted process resumes what a stopped one left. */
  start(): void {
    this.timer = setInterval(() => void this.sweep().catch((error: unknown) => this.deps.onError(error)), this.deps.config.sweepMs);
    this.timer.unref();
  }

  /** Starts work on an ingestion this process just accepted. */
  kick(ingestionId: string): void {
    this.run(ingestionId);
  }

  /** Takes up every ingestion no live lease holds, round-robin across tenants (dueIngestions). */
  async sweep(): Promise<void> {
    if (this.closed) return;
    const due = await dueIngestions(this.deps.db, this.deps.clock(), 16);
    for (const id of due) this.run(id);
    await Promise.all([...this.running.values()]);
  }

  /** Stops sweeping and waits for the batches under way. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    await Promise.all([...this.running.values()]);
  }

  private run(ingestionId: string): void {
    if (this.closed || this.running.has(ingestionId)) return;
    const work = this.process(ingestionId)
      .catch((error: unknown) => this.deps.onError(error))
      .finally(() => this.running.delete(ingestionId));
    this.running.set(ingestionId, work);
  }

  private leaseUntil(now: Date): Date {
    return new Date(now.getTime() + this.deps.config.leaseMs);
  }

  private async process(ingestionId: string): Promise<void> {
    const { db, config, clock } = this.deps;
    const now = clock();
    const claimed = await claimIngestion(db, ingestionId, this.owner, now, this.leaseUntil(now));
    if (claimed === null) return;
    if (claimed.attempts > config.maxAttempts) {
      await failIngestion(db, ingestionId, this.owner, `abandoned after ${config.maxAttempts} attempts: the processes embedding it stopped`, clock());
      return;
    }
    for (;;) {
      if (this.closed) return;
      // A round: up to embedConcurrency batches in flight, each saved (and the lease renewed) as it completes.
      const drafts = await draftsToEmbed(db, ingestionId, config.embedBatch * config.embedConcurrency);
      if (drafts.length === 0) break;
      let leaseLost = false;
      // Saves one at a time: each counts the drafts embedded before it, so chunks_done only grows.
      let saved: Promise<void> = Promise.resolve();
      const save = (first: number, vectors: readonly Float32Array[]): Promise<void> => {
        const embedded = vectors.map((vector, i) => ({ index: (drafts[first + i] as { chunk_index: number }).chunk_index, embedding: toVectorParam(vector) }));
        saved = saved.then(async () => {
          const at = clock();
          if (!(await saveDraftEmbeddings(db, ingestionId, this.owner, embedded, at, this.leaseUntil(at)))) leaseLost = true;
        });
        return saved;
      };
      try {
        await embedChunkTexts(
          this.deps.embedder,
          drafts.map((draft) => draft.content),
          { batch: config.embedBatch, concurrency: config.embedConcurrency },
          save,
        );
      } catch (error) {
        await failIngestion(db, ingestionId, this.owner, failureReason(error), clock());
        return;
      }
      if (leaseLost) return;
    }
    await this.finish(claimed);
  }

  private async finish(claimed: IngestionRow): Promise<void> {
    const { db, clock } = this.deps;
    const diffs = await db.transaction(async (tx) => {
      await lockSourceKey(tx, { tenantId: claimed.tenant_id, project: claimed.project, sourceId: claimed.source_id });
      const ingestion = await lockIngestion(tx, claimed.ingestion_id, this.owner);
      if (ingestion === null || (await countDraftsToEmbed(tx, ingestion.ingestion_id)) > 0) return [];
      return this.deps.swap(tx, ingestion, clock());
    }).catch(async (error: unknown) => {
      await failIngestion(db, claimed.ingestion_id, this.owner, failureReason(error), clock());
      return [];
    });
    this.deps.committed(diffs);
  }
}

/** What status reports of a failure: a typed error's message (they name no content), else its kind only. */
function failureReason(error: unknown): string {
  return error instanceof HyphaeError ? `${error.code}: ${error.message}` : 'the embedder or the database failed (see the server log)';
}
