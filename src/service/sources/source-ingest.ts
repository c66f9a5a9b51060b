/**
 * Ingesting a source (docs/sources.md): checked in the order that costs a refused caller least —
 * scope, size, chunking, overwrite — then embedded within the call when small (searchable when it
 * returns) or left to the SourceIngestionRunner, and swapped in as chunk cells in one transaction.
 */
import { expiryOf } from '../../core/expiry.js';
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, TooLargeError, UnavailableError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { ingestSourceInputSchema, MAX_SOURCE_METADATA_BYTES, type IngestedSource } from '../../core/source-schemas.js';
import { codePointLength } from '../../knowledge/index.js';
import { insertIngestion, lockIngestion, lockSourceKey, type SourceKey, type StoredSourceFormat } from '../../store/source-repository.js';
import { toVectorText } from '../../store/vector-text.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { parseInput } from '../facade/input-validation.js';
import { admitSource } from './source-admission.js';
import { chunkInput, draftsOf, sourceBytes } from './source-drafts.js';
import { embedChunkTexts } from './source-embedding.js';
import type { SourceIngestionConfig, SourceIngestionRunner } from './source-ingestion-runner.js';
import { refuseExisting, swapIn } from './source-swap.js';

export type SourceKeyOf = (principal: Principal, sourceId: string, project: string | undefined) => Promise<SourceKey>;

export async function ingestSource(ctx: FacadeContext, config: SourceIngestionConfig, runner: SourceIngestionRunner, keyOf: SourceKeyOf, principal: Principal, raw: unknown): Promise<IngestedSource> {
  const input = parseInput(ingestSourceInputSchema, raw);
  if ((input.text === undefined) === (input.turns === undefined)) {
    throw new InvalidArgumentError('send the source as text or as turns, one of them', [{ path: input.text === undefined ? 'text' : 'turns', message: 'send exactly one of text and turns' }]);
  }
  if (input.turns !== undefined && input.format !== undefined) throw new InvalidArgumentError('format applies to text; turns are a conversation', [{ path: 'format', message: 'only with text' }]);
  // Refused before anything is read: a past instant, both fields (docs/expiry.md). A source takes no type's default retention.
  expiryOf(input, undefined, ctx.clock());
  if (input.turns === undefined && input.user_name !== undefined) throw new InvalidArgumentError('user_name names the user of turns', [{ path: 'user_name', message: 'only with turns' }]);
  // The scope before any costly work: a caller outside the project learns nothing and costs nothing.
  const key = await keyOf(principal, input.source_id ?? randomUUID(), input.project);
  // The size first: a source over the limit is refused before it is chunked, embedded or written.
  const field = input.text === undefined ? 'turns' : 'text';
  const bytes = sourceBytes(input.text, input.turns, input.user_name);
  if (bytes > config.maxBytes) throw new TooLargeError(field, config.maxBytes, bytes);
  const metadataBytes = input.metadata === undefined ? 0 : Buffer.byteLength(JSON.stringify(input.metadata), 'utf8');
  if (metadataBytes > MAX_SOURCE_METADATA_BYTES) throw new TooLargeError('metadata', MAX_SOURCE_METADATA_BYTES, metadataBytes);
  const format: StoredSourceFormat = input.turns === undefined ? (input.format ?? 'text') : 'conversation';
  const kind = input.kind ?? (input.turns === undefined ? 'knowledge' : 'memory');
  const { body, chunks } = chunkInput(input, format);
  if (chunks.length === 0) throw new InvalidArgumentError(`${field} holds no text to index`, [{ path: field, message: 'only whitespace' }]);
  if (!input.overwrite) await refuseExisting(ctx.db, key);
  const synchronous = chunks.length <= config.syncChunks;
  const vectors = synchronous
    ? await embedChunkTexts(
        ctx.embedder,
        chunks.map((chunk) => chunk.text),
        { batch: config.embedBatch, concurrency: config.embedConcurrency },
      ).then((embedded) => embedded.map((vector) => toVectorText(vector)))
    : null;
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
        expiresAt: expiryOf(input, undefined, now),
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
}
