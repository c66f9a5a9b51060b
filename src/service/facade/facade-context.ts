/** What every concern of the facade works with: one object, built once by createMemoryFacade. */
import type { KeyAdministration } from '../../auth/key-administration.js';
import type { KeyAuthenticator } from '../../auth/key-authenticator.js';
import type { TokenPrincipals } from '../../auth/oauth/token-principals.js';
import type { MemoryNode } from '../../core/entities.js';
import type { Embedder } from '../../embed/embedder.js';
import type { WrittenDiff } from '../../mesh/diff-writer.js';
import type { CellRow } from '../../store/cell-row.js';
import type { Db } from '../../store/db.js';
import type { VectorParam } from '../../store/vector-param.js';
import type { DiffFeed } from '../gossip/diff-feed.js';
import type { Erasure } from '../erasure/erasure.js';
import type { FacadeConfig } from '../facade-config.js';
import type { GossipWriter } from '../gossip/gossip-writer.js';
import type { HitRecorder } from '../recall/hit-recorder.js';
import type { ImportSpool } from '../portability/import-spool.js';
import type { LiveStreamRegistry } from '../gossip/live-stream-registry.js';
import type { SceneSummarizer } from '../sessions/scene-summarizer.js';
import type { SessionScopes } from '../sessions/session-scope.js';
import type { StoreStamps } from '../cells/store-stamps.js';
import type { TenantQuotas } from './tenant-quotas.js';
import type { StatisticsCache } from '../recall/statistics-cache.js';
import type { CellStatistics } from '../../store/cell-statistics.js';
import type { TermStatistics } from '../../store/term-statistics.js';

export interface FacadeContext {
  readonly db: Db;
  readonly config: FacadeConfig;
  /** Time of record for cells and beacons, energy and TTLs. */
  readonly clock: () => Date;
  readonly gossip: GossipWriter;
  readonly quotas: TenantQuotas;
  /** The current project and session a store goes to. */
  readonly scopes: SessionScopes;
  /** The time a new cell is stamped with. */
  readonly stamps: StoreStamps;
  /** Recall hits, written in batches; a flush runs the promotion check. */
  readonly hits: HitRecorder;
  /** How common terms are, read in the background: hybrid recall skips the lookup of identifiers far too common to count. */
  readonly termStatistics: StatisticsCache<TermStatistics>;
  /** How the cells are shared among tenants, layers and projects: read only while learning is on (learnt-nearest.ts). */
  readonly cellStatistics: StatisticsCache<CellStatistics>;
  readonly summarizer: SceneSummarizer;
  readonly streams: LiveStreamRegistry;
  /** Live push; without it subscribeDiffs is UNAVAILABLE. */
  readonly diffFeed: DiffFeed | undefined;
  readonly authenticator: KeyAuthenticator;
  /** OAuth access tokens as principals; undefined without OAuth. */
  readonly tokenPrincipals: TokenPrincipals | undefined;
  readonly keyAdmin: KeyAdministration;
  /** Where REST import bodies wait, bounded per tenant and in all. */
  readonly importSpool: ImportSpool;
  /** The embedder every text of the facade goes through (embed() wraps it for one text). */
  readonly embedder: Embedder;
  /** One text's embedding, ready to bind. */
  embed(text: string): Promise<VectorParam>;
  /** A row in its wire shape, its energy computed now. */
  node(row: CellRow): MemoryNode;
  /** Wakes the outbox relay once diffs have committed. */
  diffsCommitted(diffs: readonly WrittenDiff[]): void;
  /** Tells the live feed that an agent's beacons changed. */
  beaconsChanged(tenantId: string, agent: string): void;
  /** The one path of every delete (docs/forgetting.md): every copy, notices, a receipt. */
  readonly erasure: Erasure;
}
