/**
 * The facade's sources (docs/sources.md): ingest a document or a conversation, read it in slices,
 * list, delete, and report its ingestion. A source is chunked here, embedded within the call when
 * small (searchable when it returns) or by the SourceIngestionRunner when large, and swapped in
 * as chunk cells in one transaction with one diff per recipient.
 */
import { randomUUID } from 'node:crypto';
import { ConflictError, InvalidArgumentError, NotFoundError, TooLargeError, UnavailableError } from '../../core/errors.js';
import { identifierTokens } from '../../core/identifier-tokens.js';
import { isStorableTimestamp } from '../../core/text-rules.js';
import type { Principal } from '../../core/principal.js';
import {
  ingestSourceInputSchema,
  listSourcesInputSchema,
  MAX_SOURCE_METADATA_BYTES,
  readSourceInputSchema,
  sourceRefInputSchema,
  type IngestedSource,
  type SourceSlice,
  type SourceStatus,
  type SourcesPage,
  type SourceSummary,
} from '../../core/source-schemas.js';
import { chunkConversation, chunkSource, codePointLength, codePointOffsets, type SourceChunk } from '../../knowledge/index.js';
import type { WrittenDiff } from '../../mesh/diff-writer.js';
import type { Queryable } from '../../store/db.js';
import {
  CHUNK_CELL_TYPE,
  CHUNK_SALIENCE,
  deleteSourceChunks,
  deleteSourceRows,
  findIngestion,
  findSource,
  insertChunksAndServe,
  insertIngestion,
  listSources,
  lockIngestion,
  lockSourceKey,
  readIngestionSlice,
  readSourceSlice,
  type ChunkDraft,
  type IngestionRow,
  type SourceKey,
  type SourceRow,
  type StoredSourceFormat,
} from '../../store/source-repository.js';
import { vectorParamFromText } from '../../store/vector-param.js';
import { toVectorText } from '../../store/vector-text.js';
import { requireProject } from '../facade/authorization.js';
import { parseInput } from '../facade/input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';
import { admitChunkCells, admitSource } from './source-admission.js';
import { DEFAULT_SOURCE_INGESTION_CONFIG, SourceIngestionRunner, type SourceIngestionConfig } from './source-ingestion-runner.js';
import type { FacadeContext } from '../facade/facade-context.js';

export type SourceOperations = Pick<MemoryFacade, 'ingestSource' | 'readSource' | 'listSources' | 'deleteSource' | 'sourceStatus'>;

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
    async ingestSource(principal, raw): Promise<IngestedSource> {
      const input = parseInput(ingestSourceInputSchema, raw);
      if ((input.text === undefined) === (input.turns === undefined)) {
        throw new InvalidArgumentError('send the source as text or as turns, one of them', [
          { path: input.text === undefined ? 'text' : 'turns', message: 'send exactly one of text and turns' },
        ]);
      }
      if (input.turns !== undefined && input.format !== undefined) throw new InvalidArgumentError('format applies to text; turns are a conversation', [{ path: 'format', message: 'only with text' }]);
      if (input.turns === undefined && input.user_name !== undefined) throw new InvalidArgumentError('user_name names the user of turns', [{ path: 'user_name', message: 'only with turns' }]);
      // The scope before any costly work: a caller outside the project learns nothing and costs nothing.
      const key = await keyOf(principal, input.source_id ?? randomUUID(), input.project);
      // The size first: a source over the limit is refused before it is chunked, embedded or written.
      const field = input.text === undefined ? 'turns' : 'text';
      const bytes = input.text === undefined ? conversationBytes(input.turns ?? [], input.user_name) : Buffer.byteLength(input.text, 'utf8');
      if (bytes > config.maxBytes) throw new TooLargeError(field, config.maxBytes, bytes);
      if (input.metadata !== undefined && Buffer.byteLength(JSON.stringify(input.metadata), 'utf8') > MAX_SOURCE_METADATA_BYTES) {
        throw new TooLargeError('metadata', MAX_SOURCE_METADATA_BYTES, Buffer.byteLength(JSON.stringify(input.metadata), 'utf8'));
      }
      const format: StoredSourceFormat = input.turns === undefined ? (input.format ?? 'text') : 'conversation';
      const kind = input.kind ?? (input.turns === undefined ? 'knowledge' : 'memory');
      const { body, chunks } =
        input.turns === undefined
          ? { body: input.text ?? '', chunks: chunkSource(input.text ?? '', format === 'markdown' ? 'markdown' : 'text', input.title) }
          : (({ text, chunks: c }) => ({ body: text, chunks: c }))(chunkConversation(input.turns, input.user_name, input.title));
      if (chunks.length === 0) throw new InvalidArgumentError(`${field} holds no text to index`, [{ path: field, message: 'only whitespace' }]);
      if (!input.overwrite) await refuseExisting(ctx.db, key);
      const synchronous = chunks.length <= config.syncChunks;
      const vectors = synchronous ? await embedAll(ctx, chunks.map((chunk) => chunk.text), config.embedBatch) : null;
      const drafts = draftsOf(body, chunks, vectors);
      const ingestionId = randomUUID();
      const now = ctx.clock();
      const diffs = await ctx.db.transaction(async (tx) => {
        await lockSourceKey(tx, key);
        if (!input.overwrite) await refuseExisting(tx, key);
        await admitSource(tx, { key, chunks: chunks.length, bytes, background: !synchronous }, { ...config, maxCellsPerTenant: ctx.config.maxCellsPerTenant });
        await insertIngestion(
          tx,
          {
            ingestionId,
            key,
            kind,
            format,
            title: input.title ?? null,
            metadata: input.metadata ?? {},
            observationDate: input.observation_date ?? null,
            body,
            totalChars: codePointLength(body),
            totalBytes: bytes,
            createdBy: principal.agent,
            trust: principal.trust,
            state: synchronous ? 'indexing' : 'queued',
            now,
          },
          drafts,
        );
        if (!synchronous) return [];
        const ingestion = await lockIngestion(tx, ingestionId, null);
        if (ingestion === null) throw new UnavailableError('the ingestion vanished inside its own transaction');
        return swapIn(ctx, tx, ingestion, now);
      });
      ctx.diffsCommitted(diffs);
      if (!synchronous) runner.kick(ingestionId);
      return {
        source_id: key.sourceId,
        project: key.project,
        kind,
        title: input.title ?? null,
        state: synchronous ? 'ready' : 'queued',
        chunks_done: synchronous ? chunks.length : 0,
        chunks_total: chunks.length,
        failure: null,
        serving_previous: false,
        updated_at: now.toISOString(),
      };
    },

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

    async deleteSource(principal, raw): Promise<void> {
      const input = parseInput(sourceRefInputSchema, raw);
      const key = await keyOf(principal, input.source_id, input.project);
      await ctx.db.transaction(async (tx) => {
        await lockSourceKey(tx, key);
        await deleteSourceChunks(tx, key);
        if (!(await deleteSourceRows(tx, key))) throw new NotFoundError('source', key.sourceId);
      });
    },

    async sourceStatus(principal, raw): Promise<SourceStatus> {
      const input = parseInput(sourceRefInputSchema, raw);
      const key = await keyOf(principal, input.source_id, input.project);
      const [served, pending] = await Promise.all([findSource(ctx.db, key), findIngestion(ctx.db, key)]);
      if (pending !== null) {
        return {
          source_id: key.sourceId,
          project: key.project,
          state: pending.state,
          chunks_done: pending.chunks_done,
          chunks_total: pending.chunks_total,
          failure: pending.failure,
          serving_previous: served !== null,
          updated_at: pending.updated_at,
        };
      }
      if (served === null) throw new NotFoundError('source', key.sourceId);
      return {
        source_id: key.sourceId,
        project: key.project,
        state: 'ready',
        chunks_done: served.chunk_count,
        chunks_total: served.chunk_count,
        failure: null,
        serving_previous: false,
        updated_at: served.updated_at,
      };
    },
  };
  return { operations, runner };
}

/** CONFLICT when the source exists or an ingestion of it is pending (overwrite: false). */
async function refuseExisting(q: Queryable, key: SourceKey): Promise<void> {
  if ((await findSource(q, key)) !== null || (await findIngestion(q, key)) !== null) {
    throw new ConflictError(`source ${key.sourceId} exists in project ${key.project}; send overwrite: true to replace it`, { details: { source_id: key.sourceId } });
  }
}

/**
 * The swap: the source's old chunk cells (their terms and diffs) out, the ingestion's drafts in as
 * chunk cells, the ingestion served — one transaction, so a reader sees one version's chunks —
 * and one diff per recipient for the whole source.
 */
async function swapIn(ctx: FacadeContext, tx: Queryable, ingestion: IngestionRow, now: Date): Promise<WrittenDiff[]> {
  const key = { tenantId: ingestion.tenant_id, project: ingestion.project, sourceId: ingestion.source_id };
  const removed = await deleteSourceChunks(tx, key);
  await admitChunkCells(tx, ingestion.tenant_id, ingestion.chunks_total, ctx.config.maxCellsPerTenant);
  for (let i = 0; i < ingestion.chunks_total; i += 1) await ctx.quotas.admitCell(tx, ingestion.tenant_id);
  const inserted = await insertChunksAndServe(tx, ingestion, now);
  const changes = inserted.map((chunk) => ({
    tenantId: ingestion.tenant_id,
    nodeId: chunk.node_id,
    project: ingestion.project,
    cellType: CHUNK_CELL_TYPE,
    salience: CHUNK_SALIENCE,
    sceneId: null,
    sourceAgent: ingestion.created_by,
    content: chunk.content,
    embedding: vectorParamFromText(chunk.embedding),
  })) satisfies Parameters<typeof ctx.gossip.emitSource>[3];
  return ctx.gossip.emitSource(tx, removed.length > 0 ? 'updated' : 'created', ingestion.source_id, changes, ingestion.title ?? ingestion.source_id, now);
}

async function embedAll(ctx: FacadeContext, texts: readonly string[], batch: number): Promise<string[]> {
  const vectors: string[] = [];
  for (let at = 0; at < texts.length; at += batch) {
    const slice = texts.slice(at, at + batch);
    const embedded = await ctx.embedder.embed(slice);
    if (embedded.length !== slice.length) throw new UnavailableError('the embedder returned fewer vectors than texts');
    for (const vector of embedded) vectors.push(toVectorText(vector));
  }
  return vectors;
}

/** The chunks as drafts, their positions turned into code points of `body`. */
function draftsOf(body: string, chunks: readonly SourceChunk[], vectors: readonly string[] | null): ChunkDraft[] {
  const points = codePointOffsets(body, chunks.flatMap((chunk) => [chunk.start, chunk.end]));
  return chunks.map((chunk, i) => ({
    index: chunk.index,
    content: chunk.text,
    start: points.get(chunk.start) ?? 0,
    end: points.get(chunk.end) ?? 0,
    identifiers: identifierTokens(chunk.text),
    embedding: vectors === null ? null : (vectors[i] ?? null),
  }));
}

/** UTF-8 bytes of the conversation as rendered, without rendering it. */
function conversationBytes(turns: readonly { readonly user: string; readonly assistant: string }[], userName: string | undefined): number {
  const frame = Buffer.byteLength(`${userName ?? 'User'}: \nAssistant: `, 'utf8');
  return turns.reduce((sum, turn, i) => sum + frame + (i > 0 ? 2 : 0) + Buffer.byteLength(turn.user, 'utf8') + Buffer.byteLength(turn.assistant, 'utf8'), 0);
}

function summaryOf(row: SourceRow): SourceSummary {
  return {
    source_id: row.source_id,
    project: row.project,
    kind: row.kind,
    format: row.format,
    title: row.title,
    metadata: row.metadata,
    observation_date: row.observation_date,
    total_chars: row.total_chars,
    total_bytes: row.total_bytes,
    chunk_count: row.chunk_count,
    created_by: row.created_by,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

/** A source whose first version is still being ingested: what it will be, with no chunks yet. */
function pendingSummary(row: IngestionRow): SourceSummary {
  return { ...summaryOf({ ...row, chunk_count: 0 }) };
}

function encodeSourceCursor(createdAt: string, sourceId: string): string {
  return Buffer.from(JSON.stringify([createdAt, sourceId]), 'utf8').toString('base64url');
}

function decodeSourceCursor(cursor: string | undefined): { createdAt: string; sourceId: string } | null {
  if (cursor === undefined) return null;
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && /^\d{4}-\d{2}-\d{2}T[\d:.]+Z$/.test(value[0]) && isStorableTimestamp(value[0]) && typeof value[1] === 'string') {
      return { createdAt: value[0], sourceId: value[1] };
    }
  } catch {
    // falls through to the typed error below
  }
  throw new InvalidArgumentError('cursor is not a cursor this server issued', [{ path: 'cursor', message: 'malformed cursor' }]);
}
