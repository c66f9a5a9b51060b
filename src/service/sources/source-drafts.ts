/** A source's text turned into chunk drafts: chunked by its format, positions in code points, sizes counted before rendering. */
import { identifierTokens } from '../../core/identifier-tokens.js';
import { chunkConversation, chunkSource, codePointOffsets, type SourceChunk } from '../../knowledge/index.js';
import type { ChunkDraft, StoredSourceFormat } from '../../store/source-repository.js';

type Turns = readonly { readonly user: string; readonly assistant: string }[];

/** UTF-8 bytes of the source as it will be stored: a text as sent, turns as rendered (without rendering them). */
export function sourceBytes(text: string | undefined, turns: Turns | undefined, userName: string | undefined): number {
  if (text !== undefined) return Buffer.byteLength(text, 'utf8');
  const frame = Buffer.byteLength(`${userName ?? 'User'}: \nAssistant: `, 'utf8');
  return (turns ?? []).reduce((sum, turn, i) => sum + frame + (i > 0 ? 2 : 0) + Buffer.byteLength(turn.user, 'utf8') + Buffer.byteLength(turn.assistant, 'utf8'), 0);
}

export interface ChunkedSource {
  /** The source's text: as sent, or the conversation rendered. */
  readonly body: string;
  readonly chunks: readonly SourceChunk[];
}

/** Chunks a text by its format (markdown on its structure, plain text on paragraphs) or turns by turn. */
export function chunkInput(input: { readonly text?: string | undefined; readonly turns?: Turns | undefined; readonly user_name?: string | undefined; readonly title?: string | undefined }, format: StoredSourceFormat): ChunkedSource {
  if (input.turns === undefined) {
    const body = input.text ?? '';
    return { body, chunks: chunkSource(body, format === 'markdown' ? 'markdown' : 'text', input.title) };
  }
  const { text, chunks } = chunkConversation(input.turns, input.user_name, input.title);
  return { body: text, chunks };
}

/** The chunks as drafts, their positions turned into code points of `body`. */
export function draftsOf(body: string, chunks: readonly SourceChunk[], vectors: readonly string[] | null): ChunkDraft[] {
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
