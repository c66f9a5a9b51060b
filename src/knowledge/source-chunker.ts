/**
 * A source's chunks: where each lies in the source and the text that is embedded for it (the
 * heading path, a blank line, then the chunk's own text). Markdown is cut on its structure, plain
 * text on paragraphs, a conversation on turns (docs/sources.md, "Chunking").
 */
import { packSections, pathPrefix, type ChunkLimits, type Section } from './chunk-packing.js';
import { conversationSections, renderConversation, type ConversationTurn } from './conversation-text.js';
import { markdownSections, paragraphSections } from './markdown-sections.js';

export const SOURCE_FORMATS = ['text', 'markdown', 'conversation'] as const;
export type SourceFormat = (typeof SOURCE_FORMATS)[number];

/**
 * all-MiniLM-L6-v2's 256-token window less [CLS] and [SEP]; 32 tokens (an eighth) of overlap where
 * a unit is cut; 2,000 characters of source at most per chunk.
 */
export const DEFAULT_CHUNK_LIMITS: ChunkLimits = { maxTokens: 254, overlapTokens: 32, maxChars: 2_000 };

export interface SourceChunk {
  readonly index: number;
  /** Where the chunk lies in the source: UTF-16 code units, `source.slice(start, end)` is `body`. */
  readonly start: number;
  readonly end: number;
  readonly body: string;
  /** The title and headings above it, outermost first. */
  readonly path: readonly string[];
  /** What is embedded and stored as the chunk cell's content: the heading path, then the body. */
  readonly text: string;
}

export function chunkSource(source: string, format: Exclude<SourceFormat, 'conversation'>, title: string | undefined, limits: ChunkLimits = DEFAULT_CHUNK_LIMITS): SourceChunk[] {
  return chunksOf(source, format === 'markdown' ? markdownSections(source, title) : paragraphSections(source, title), limits);
}

export interface ChunkedConversation {
  /** The conversation as the source's text. */
  readonly text: string;
  readonly chunks: readonly SourceChunk[];
}

export function chunkConversation(turns: readonly ConversationTurn[], userName: string | undefined, title: string | undefined, limits: ChunkLimits = DEFAULT_CHUNK_LIMITS): ChunkedConversation {
  const rendered = renderConversation(turns, userName);
  return { text: rendered.text, chunks: chunksOf(rendered.text, conversationSections(rendered, title), limits) };
}

function chunksOf(source: string, sections: readonly Section[], limits: ChunkLimits): SourceChunk[] {
  return packSections(source, sections, limits).map((chunk, index) => {
    const body = source.slice(chunk.start, chunk.end);
    const prefix = pathPrefix(chunk.path, limits.maxTokens);
    return { index, start: chunk.start, end: chunk.end, body, path: chunk.path, text: prefix === '' ? body : `${prefix}\n\n${body}` };
  });
}
