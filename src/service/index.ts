/**
 * The service layer as the other layers use it: the memory facade (its interface, its assembly
 * and its metering), its configuration, input parsing for surfaces that decode their own
 * messages, and re-embedding a database.
 */
export { createMemoryFacade } from './facade/create-memory-facade.js';
export type { ManagedMemoryFacade, MemoryFacadeDeps } from './facade/create-memory-facade.js';
export type { HydrateOption, LiveDiffListener, LiveSubscription, MemoryFacade } from './memory-facade.js';
export { defaultRestatementSimilarityFor } from './facade-config.js';
export type { FacadeConfig } from './facade-config.js';
export type { DiffFeed } from './gossip/diff-feed.js';
export type { OutboxSignal } from './gossip/gossip-writer.js';
export type { SceneSummarizer } from './sessions/scene-summarizer.js';
export { meteredFacade } from './facade/metered-facade.js';
export type { FacadeObserver } from './facade/metered-facade.js';
export { parseInput } from './facade/input-validation.js';
export { reembedDatabase, REEMBED_DEFAULT_BATCH_SIZE } from './reembed/reembed-database.js';
export type { ReembedOutcome, ReembedProgress } from './reembed/reembed-database.js';
export { PRODUCT_VERSION } from './product-version.js';
export { exportDumpLines } from './portability/export-dump.js';
export type { ExportDumpOptions } from './portability/export-dump.js';
export { importDump } from './portability/import-dump.js';
export type { ImportDumpOptions, ImportProgress } from './portability/import-dump.js';
export { dumpReaderFor } from './portability/dump-readers.js';
export type { ImportFormat } from './portability/dump-readers.js';
export { fileDumpSource, spoolDumpSource } from './portability/dump-source.js';
export type { DumpSource, SpooledDumpSource } from './portability/dump-source.js';
export { IMPORT_MAX_BYTES } from './portability/portability.js';
export { authorizeOperation } from './facade/operation-authorization.js';
export type { ImportBody } from './portability/import-spool.js';
export type { ForeignImportTarget } from './portability/foreign-cell.js';
export type { DumpReader } from './portability/dump-items.js';
export type { FeedbackLearner, Judgement } from './feedback/feedback-learner.js';
