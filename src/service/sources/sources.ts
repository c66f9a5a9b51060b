/**
 * The facade's sources (docs/sources.md): ingest a document or a conversation (source-ingest.ts),
 * read it in slices, list, page through its chunks, delete, and report its ingestion. Large
 * sources are embedded by the SourceIngestionRunner, started here.
 */
import { NotFoundError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { listSourcesInputSchema, readSourceInputSchema, sourceRefInputSchema, type SourceSlice, type SourceStatus, type SourcesPage } from '../../core/source-schemas.js';
import { codePointLength } from '../../knowledge/index.js';
import type { ErasureReceipt } from '../../core/erasure-schemas.js';
import type { Queryable } from '../../store/db.js';
import { findIngestion, findSource, listSources, readIngestionSlice, readSourceSlice, type IngestionRow, type SourceKey } from '../../store/source-repository.js';
import { erasureActor } from '../erasure/erasure-actor.js';
import { requireProject } from '../facade/authorization.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { parseInput } from '../facade/input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';
import { sourceChunks } from './source-chunks.js';
import { ingestSource } from './source-ingest.js';
import { DEFAULT_SOURCE_INGESTION_CONFIG, SourceIngestionRunner, type SourceIngestionConfig } from './source-ingestion-runner.js';
import { swapIn } from './source-swap.js';
import { decodeSourceCursor, encodeSourceCursor, pendingSummary, summaryOf } from './source-views.js';

export type SourceOperations = Pick<MemoryFacade, 'ingestSource' | 'readSource' | 'listSources' | 'sourceChunks' | 'deleteSource' | 'sourceStatus'>;

export interface SourceFacade {
  readonly operations: SourceOperations;
  /** Background ingestion; close() stops it. */
  readonly runner: SourceIngestionRunner;
}

export function createSourceOperations(ctx: FacadeContext, overrides: Partial<SourceIngestionConfig> = {}, onError: (error: unknown) => void = () => undefined): SourceFacade {
  const config: SourceIngestionConfig = { ...DEFAULT_SOURCE_INGESTION_CONFIG, ...overrides };
  const runner = new SourceIngestionRunner({
    db: ctx.db,
    embedder: ctx.embedder,
    clock: ctx.clock,
    config,
    swap: (tx, ingestion, now) => swapIn(ctx, tx, ingestion, now),
    committed: (diffs) => ctx.diffsCommitted(diffs),
    onError,
  });
  runner.start();

  const keyOf = async (principal: Principal, sourceId: string, project: string | undefined): Promise<SourceKey> => {
    const chosen = project ?? (await ctx.scopes.resolve(ctx.db, principal)).project;
    requireProject(principal, chosen);
    return { tenantId: principal.tenantId, project: chosen, sourceId };
  };

  const operations: SourceOperations = {
    ingestSource: (principal, raw) => ingestSource(ctx, config, runner, keyOf, principal, raw),

    async readSource(principal, raw): Promise<SourceSlice> {
      const input = parseInput(readSourceInputSchema, raw);
      const key = await keyOf(principal, input.source_id, input.project);
      const served = await readSourceSlice(ctx.db, key, input.offset, input.limit);
      const row = served ?? (await readIngestionSlice(ctx.db, key, input.offset, input.limit));
      if (row === null) throw new NotFoundError('source', key.sourceId);
      const summary = served === null ? pendingSummary(row as IngestionRow) : summaryOf(served);
      const state = served === null ? (row as IngestionRow).state : 'ready';
      const end = input.offset + codePointLength(row.text);
      return {
        ...summary,
        state,
        offset: input.offset,
        text: row.text,
        // A failed ingestion's text was dropped when it failed: there is nothing more to read.
        next_offset: state !== 'failed' && end < summary.total_chars ? end : null,
      };
    },

    async listSources(principal, raw): Promise<SourcesPage> {
      const input = parseInput(listSourcesInputSchema, raw);
      const project = input.project ?? (await ctx.scopes.resolve(ctx.db, principal)).project;
      requireProject(principal, project);
      const rows = await listSources(ctx.db, principal.tenantId, project, input.kind, decodeSourceCursor(input.cursor), input.limit);
      const kept = rows.slice(0, input.limit);
      const last = kept.at(-1);
      return {
        sources: kept.map(summaryOf),
        next_cursor: rows.length > input.limit && last !== undefined ? encodeSourceCursor(last.created_at, last.source_id) : null,
      };
    },

    sourceChunks: (principal, raw) => sourceChunks(ctx.db, keyOf, principal, raw),

    async deleteSource(principal, raw): Promise<ErasureReceipt> {
      const input = parseInput(sourceRefInputSchema, raw);
      const key = await keyOf(principal, input.source_id, input.project);
      const guard = async (tx: Queryable): Promise<void> => {
        if ((await findSource(tx, key)) === null && (await findIngestion(tx, key)) === null) throw new NotFoundError('source', key.sourceId);
      };
      return ctx.erasure.erase(erasureActor(principal), { kind: 'source', project: key.project, sourceId: key.sourceId }, { guard });
    },

    async sourceStatus(principal, raw): Promise<SourceStatus> {
      const input = parseInput(sourceRefInputSchema, raw);
      const key = await keyOf(principal, input.source_id, input.project);
      // The pending ingestion first: read in parallel, a swap committing between the two reads answered neither (NOT_FOUND mid-ingestion).
      const pending = await findIngestion(ctx.db, key);
      const served = await findSource(ctx.db, key);
      if (pending !== null) {
        const { state, chunks_done, chunks_total, failure, updated_at } = pending;
        return { source_id: key.sourceId, project: key.project, state, chunks_done, chunks_total, failure, serving_previous: served !== null, updated_at };
      }
      if (served === null) throw new NotFoundError('source', key.sourceId);
      const { chunk_count, updated_at } = served;
      return { source_id: key.sourceId, project: key.project, state: 'ready', chunks_done: chunk_count, chunks_total: chunk_count, failure: null, serving_previous: false, updated_at };
    },
  };
  return { operations, runner };
}
