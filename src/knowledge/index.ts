/** Sources turned into chunks: pure functions over text (docs/sources.md, "Chunking"). */
export { codePointLength, codePointOffsets } from './code-point-offsets.js';
export { chunkConversation, chunkSource, DEFAULT_CHUNK_LIMITS, SOURCE_FORMATS, type ChunkedConversation, type SourceChunk, type SourceFormat } from './source-chunker.js';
export { DEFAULT_USER_NAME, type ConversationTurn } from './conversation-text.js';
export { estimateTokens } from './token-estimate.js';
