/**
 * The shapes the console reads from the REST API: the server's own wire types, plus the answers of
 * the routes that exist for people (identity, gossip, quotas).
 */
export type { ApiKeyInfo, Beacon, CellHistory, Corroboration, CreatedApiKey, Diff, MemoryNode, Scene, StoredNode } from '../../../src/core/entities.js';
export type { CellType, Layer, Role } from '../../../src/core/cell-types.js';
export type { ConsoleKeysOnly, ConsoleSignInDocument, GossipAgent, GossipEvent, Identity, QuotaUsage } from '../../../src/core/console-entities.js';

export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly details?: unknown };
}
export type { SourceChunk, SourceChunksPage, SourceSlice, SourceStatus, SourceSummary, SourcesPage } from '../../../src/core/source-schemas.js';
export type { FeedbackQuality } from '../../../src/core/feedback-quality-schemas.js';
export type { Subgraph, SubgraphMember } from '../../../src/core/relation-schemas.js';
export type { ErasureReceipt, ErasureReceiptPage } from '../../../src/core/erasure-schemas.js';
