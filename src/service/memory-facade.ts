/**
 * The memory facade: the one application core that every surface (MCP, REST, gRPC, A2A, CLI)
 * calls. Every method takes the authenticated principal first; authorisation and tenant
 * scoping happen here, once. Inputs are the outputs of the shared zod schemas (src/core/schemas.ts);
 * the facade re-validates them, so a surface cannot bypass a rule.
 */
import type {
  ApiKeyInfo,
  CellHistory,
  Beacon,
  ChannelBacklog,
  CreatedApiKey,
  Diff,
  DiffsSince,
  DrainedInbox,
  InboxPeek,
  MemoryNode,
  Page,
  RecallResult,
  Scene,
  SceneWithCells,
  SessionClosed,
  SessionOpened,
  PurgedProject,
  StoredNode,
} from '../core/entities.js';
import type { ImportSummary } from '../core/export-format.js';
import type { GossipAgent, GossipEvent, Identity, QuotaUsage } from '../core/console-entities.js';
import type { RecentGossipInput, WatchGossipInput } from '../core/console-schemas.js';
import type { Principal } from '../core/principal.js';
import type {
  DeleteCellOptions,
  EraseAgentInput,
  EraseTenantInput,
  ErasureReceipt,
  ErasureReceiptPage,
  ListErasureReceiptsInput,
  TenantErasureConfirmation,
} from '../core/erasure-schemas.js';
import type {
  CloseSessionInput,
  CreateKeyInput,
  DrainInboxInput,
  ExportTenantInput,
  ImportTenantInput,
  ForgetCellsInput,
  ListBeaconsInput,
  ListCellsInput,
  ListScenesInput,
  OpenSessionInput,
  PeekInboxInput,
  ResourceSubscriptionInput,
  PlaceBeaconInput,
  PullDiffsInput,
  PurgeProjectInput,
  QueryInput,
  RecallInput,
  StoreInput,
  ValidityInput,
} from '../core/schemas.js';
import type { DumpSource } from './portability/dump-source.js';
import type {
  IngestSourceInput,
  IngestedSource,
  ListSourcesInput,
  ReadSourceInput,
  SourceChunksInput,
  SourceChunksPage,
  SourceRefInput,
  SourceSlice,
  SourceStatus,
  SourcesPage,
} from '../core/source-schemas.js';
import type { ImportBody } from './portability/import-spool.js';
import type { AddRelationsInput, CellRelations, RelationInput, Subgraph, SubgraphInput } from '../core/relation-schemas.js';
import type { NumberedSources, NumberedSourcesInput } from '../core/source-catalog-schemas.js';
import type { FeedbackInput, FeedbackReceipt } from '../core/feedback-schemas.js';
import type { FeedbackQuality, FeedbackQualityInput } from '../core/feedback-quality-schemas.js';

export interface HydrateOption {
  /** Return full nodes with each hit (REST); MCP asks for ids and distances only. */
  readonly withNodes?: boolean;
  /** Which versions to search (REST `include_superseded` / `as_of`); default: current cells only. */
  readonly validity?: ValidityInput;
  /** Search this project of the key's scope instead of the current one (REST `project`). */
  readonly project?: string;
  /** Search these projects of the key's scope together, each checked (the HydraDB toolset's `collections`). */
  readonly projects?: readonly string[];
  /** Only chunks of these sources (source_id). */
  readonly sourceIds?: readonly string[];
  /** Only chunks of sources titled one of these (exact, ignoring case). */
  readonly titles?: readonly string[];
  /** Only cells whose text holds each of these strings, ignoring case: the words of an `and` query, or one phrase. */
  readonly containsAll?: readonly string[];
}

export interface LiveDiffListener {
  (diff: Diff): void;
}

export interface LiveSubscription {
  close(): Promise<void>;
  /** Settles when the stream ends from the server side (its key was revoked, the process closes). */
  readonly ended?: Promise<void>;
}

export interface MemoryFacade {
  /** Resolves a clear API key to its principal; UNAUTHENTICATED when unknown or revoked. */
  authenticate(apiKey: string): Promise<Principal>;
  /**
   * Resolves an OAuth access token to its principal (docs/security.md): UNAUTHENTICATED when it is
   * not valid here or OAuth is not configured, FORBIDDEN when its tenant or scopes allow nothing.
   */
  authenticateBearer(token: string): Promise<Principal>;

  /** The new cell; the reinforced one (`reinforced: true`) when it restates a current cell; the original on an idempotent replay. */
  store(principal: Principal, input: StoreInput): Promise<StoredNode>;
  /** The cell; with `asOf`, the version of its chain that was current then (NOT_FOUND if none was). */
  getCell(principal: Principal, nodeId: string, options?: { readonly asOf?: string }): Promise<MemoryNode>;
  /** Every version of the cell's supersession chain, oldest first, and the restatements that reinforced them (corroboration records). */
  cellHistory(principal: Principal, nodeId: string): Promise<CellHistory>;
  listCells(principal: Principal, input: ListCellsInput): Promise<Page<MemoryNode>>;
  /** Erases the cell (with `include_history`, its whole supersession chain) and every copy of its text; the receipt (docs/forgetting.md). */
  deleteCell(principal: Principal, nodeId: string, options?: DeleteCellOptions): Promise<ErasureReceipt>;
  /** Forgets the readable cells of a scene or of one source (a batch per call); `deleted` diffs as for deleteCell. */
  forgetCells(principal: Principal, input: ForgetCellsInput): Promise<{ readonly deleted: number; readonly has_more: boolean }>;

  /**
   * Admin only: erases one project of the principal's tenant — cells, scenes, sessions, the beacons
   * watching only it and the diffs about it — in batches, with a receipt (docs/forgetting.md). No `deleted` diffs (see memory-model.md).
   */
  purgeProject(principal: Principal, input: PurgeProjectInput): Promise<PurgedProject>;

  recall(principal: Principal, input: RecallInput, options?: HydrateOption): Promise<RecallResult>;
  query(principal: Principal, input: QueryInput, options?: HydrateOption): Promise<RecallResult>;

  openSession(principal: Principal, input: OpenSessionInput): Promise<SessionOpened>;
  closeSession(principal: Principal, input: CloseSessionInput): Promise<SessionClosed>;

  getScene(principal: Principal, sceneId: string, options?: HydrateOption): Promise<SceneWithCells>;
  listScenes(principal: Principal, input: ListScenesInput): Promise<Page<Scene>>;
  consolidateScene(principal: Principal, sceneId: string): Promise<MemoryNode>;

  placeBeacon(principal: Principal, input: PlaceBeaconInput): Promise<Beacon>;
  listBeacons(principal: Principal, input: ListBeaconsInput): Promise<Page<Beacon>>;
  deleteBeacon(principal: Principal, beaconId: string): Promise<void>;

  pullDiffs(principal: Principal, input: PullDiffsInput): Promise<DiffsSince>;
  drainInbox(principal: Principal, input: DrainInboxInput): Promise<DrainedInbox>;
  /** The undelivered part of the inbox, without moving the cursor (reads never mutate). */
  peekInbox(principal: Principal, input: PeekInboxInput): Promise<InboxPeek>;
  /** Records an MCP resource subscription; a cell the principal cannot read is NOT_FOUND. */
  subscribeResource(principal: Principal, input: ResourceSubscriptionInput): Promise<void>;
  /** Drops one (idempotent). */
  unsubscribeResource(principal: Principal, input: ResourceSubscriptionInput): Promise<void>;
  /** The resources (`inbox`, `cell:<id>`) one MCP session of the principal subscribed to. */
  resourceSubscriptions(principal: Principal, session: string): Promise<readonly string[]>;
  /** Live push: calls listener for each new diff addressed to the principal, from any replica. */
  subscribeDiffs(principal: Principal, listener: LiveDiffListener, afterSeq?: number): Promise<LiveSubscription>;
  /** What a new channel session announces: the inbox above the drain cursor and the channel mark, readable diffs only. */
  channelBacklog(principal: Principal): Promise<ChannelBacklog>;
  /** The principal's channel dealt with every diff up to `seq` (the mark never goes down). */
  markChannelSettled(principal: Principal, seq: number): Promise<void>;
  /** The trust an agent of the principal's tenant holds (its highest unrevoked key); undefined when it has none. */
  authorTrust(principal: Principal, agent: string): Promise<number | undefined>;

  /**
   * Admin only: the principal's tenant (or one project of it) as export-format lines, each ending
   * in a newline (docs/export-format.md), read a page at a time as the caller consumes them.
   */
  exportTenant(principal: Principal, input: ExportTenantInput): Promise<AsyncIterable<string>>;
  /**
   * Admin only: imports an export of the principal's tenant (or a server-memory or mem0 file) from
   * `source`: the whole file is checked, then written in one transaction; nothing already there is
   * changed, so importing it again adds nothing.
   */
  importTenant(principal: Principal, source: DumpSource | ImportBody, input: ImportTenantInput): Promise<ImportSummary>;
  /** The principal as its key makes it (`GET /v1/me`). */
  whoAmI(principal: Principal): Promise<Identity>;
  /** The tenant's agents with their live beacons (admin); any other key: itself and its own beacons. */
  gossipAgents(principal: Principal): Promise<readonly GossipAgent[]>;
  /** The newest deliveries, newest first: the tenant's (admin, or one recipient's), else the principal's own inbox. */
  recentGossip(principal: Principal, input: RecentGossipInput): Promise<readonly GossipEvent[]>;
  /** Each delivery as it happens, from any replica (live only), under the same rule as recentGossip; counts as a live stream. */
  watchGossip(principal: Principal, input: WatchGossipInput, listener: (event: GossipEvent) => void): Promise<LiveSubscription>;
  /** Admin only: what the tenant and its agents hold against each quota, and the live streams open. */
  quotaUsage(principal: Principal): Promise<readonly QuotaUsage[]>;

  /**
   * Ingests a document or a conversation as a source (docs/sources.md): chunked, embedded and
   * swapped in as chunk cells; `ready` when small enough to be searchable on return, else `queued`.
   * Reusing a source_id replaces it (CONFLICT with overwrite: false); over the size limit, TOO_LARGE with nothing written.
   */
  ingestSource(principal: Principal, input: IngestSourceInput): Promise<IngestedSource>;
  /** A slice of a source's text (code points [offset, offset + limit)) with its fields, total_chars and next_offset. */
  readSource(principal: Principal, input: ReadSourceInput): Promise<SourceSlice>;
  /** The project's served sources, newest first, optionally of one kind. */
  listSources(principal: Principal, input: ListSourcesInput): Promise<SourcesPage>;
  /** Erases a source, its chunk cells and every copy of their text; their diffs stay as tombstones and a `deleted` goes to those who received one. */
  deleteSource(principal: Principal, input: SourceRefInput): Promise<ErasureReceipt>;
  /** Where the source's latest ingestion stands: queued, indexing (chunks done/total), ready or failed (reason). */
  sourceStatus(principal: Principal, input: SourceRefInput): Promise<SourceStatus>;
  /** A page of a source's chunks (served, or the pending ingestion's): index, cell id, range, heading path, status. */
  sourceChunks(principal: Principal, input: SourceChunksInput): Promise<SourceChunksPage>;
  /** One family of the project's served sources by page number, newest first, with how many there are in all. */
  numberedSources(principal: Principal, input: NumberedSourcesInput): Promise<NumberedSources>;
  /** The subgraph around a served source, walked from its first chunk (NOT_FOUND for a source the principal cannot read). */
  sourceSubgraph(principal: Principal, source: SourceRefInput, input: SubgraphInput): Promise<Subgraph>;

  /** The relations the cell declares to cells the principal can read, oldest first. */
  cellRelations(principal: Principal, nodeId: string): Promise<CellRelations>;
  /**
   * What surrounds a cell: the members reachable from it over explicit relations and implicit
   * edges, breadth-first, with the edges among them; members the principal cannot read are
   * neither answered nor walked through.
   */
  cellSubgraph(principal: Principal, nodeId: string, input: SubgraphInput): Promise<Subgraph>;
  /** Adds typed relations from a cell to cells the principal can read (docs/relations.md); answers every relation the cell declares. */
  addRelations(principal: Principal, nodeId: string, input: AddRelationsInput): Promise<CellRelations>;
  /** Deletes one relation the cell declares (NOT_FOUND when it declares no such relation). */
  deleteRelation(principal: Principal, nodeId: string, input: RelationInput): Promise<void>;

  /**
   * Records feedback on a logged recall or query by its request_id (docs/feedback.md), labelled
   * agent or human by the credential: INVALID_ARGUMENT (`details.reason` `feedback_empty`) with
   * neither text nor ground truth; NOT_FOUND for a request that is unknown, expired, another
   * tenant's or outside the caller's projects, and for ground-truth ids the caller cannot read.
   * Changes neither the judged answer nor any cell.
   */
  submitFeedback(principal: Principal, input: FeedbackInput): Promise<FeedbackReceipt>;
  /** Admin only: recall on the tenant's judged requests per day and sender label, and the worst-judged requests (docs/feedback.md). */
  feedbackQuality(principal: Principal, input: FeedbackQualityInput): Promise<FeedbackQuality>;

  createKey(principal: Principal, input: CreateKeyInput): Promise<CreatedApiKey>;
  listKeys(principal: Principal): Promise<readonly ApiKeyInfo[]>;
  revokeKey(principal: Principal, keyId: string): Promise<void>;
  /** Mints a replacement with the key's attributes and revokes the key, in one transaction; the clear key is in this answer only. */
  rotateKey(principal: Principal, keyId: string): Promise<CreatedApiKey>;

  /** Tenant admins: erases everything the agent wrote in the tenant (docs/forgetting.md); another tenant's agent answers as one that wrote nothing. */
  eraseAgentMemories(principal: Principal, input: EraseAgentInput): Promise<ErasureReceipt>;
  /** Tenant admins: without `confirmation`, a token for this key valid a few minutes; with it, erases the tenant and revokes its keys. */
  eraseTenant(principal: Principal, input: EraseTenantInput): Promise<TenantErasureConfirmation | ErasureReceipt>;
  /** Tenant admins: the tenant's erasure receipts, newest first. */
  listErasureReceipts(principal: Principal, input: ListErasureReceiptsInput): Promise<ErasureReceiptPage>;
}
