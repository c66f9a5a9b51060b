/**
 * The memory facade (src/service/memory-facade.ts) over PostgreSQL + pgvector. Every method
 * re-validates its input, checks the role, and scopes every statement by the principal's tenant;
 * a foreign id, or one outside the principal's project scope, reads as NOT_FOUND.
 */
import { randomUUID } from 'node:crypto';
import { PROMOTABLE_TYPES } from '../core/cell-types.js';
import type {
  ApiKeyInfo,
  Beacon,
  CreatedApiKey,
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
import { ConflictError, ForbiddenError, InvalidArgumentError, NotFoundError, UnavailableError } from '../core/errors.js';
import { canAccessProject, type Principal } from '../core/principal.js';
import {
  closeSessionInputSchema,
  createKeyInputSchema,
  drainInboxInputSchema,
  forgetCellsInputSchema,
  listBeaconsInputSchema,
  listCellsInputSchema,
  listScenesInputSchema,
  openSessionInputSchema,
  peekInboxInputSchema,
  resourceSubscriptionInputSchema,
  placeBeaconInputSchema,
  pullDiffsInputSchema,
  purgeProjectInputSchema,
  queryInputSchema,
  recallInputSchema,
  storeInputSchema,
  timestampInputSchema,
  validityInputSchema,
  type ValidityInput,
} from '../core/schemas.js';
import { KeyAuthenticator } from '../auth/key-authenticator.js';
import { createKeyAdministration, type KeyAdministration } from '../auth/key-administration.js';
import type { Embedder } from '../embed/embedder.js';
import { toDiff } from '../mesh/diff-row.js';
import type { WrittenDiff } from '../mesh/diff-writer.js';
import { drainInbox } from '../mesh/inbox-drain.js';
import { peekInbox } from '../mesh/inbox-peek.js';
import { countLiveBeacons, deleteOwnBeacon, findOwnBeacon, insertBeacon, listOwnBeacons, lockOwnerBeacons } from '../store/beacon-repository.js';
import {
  cellHistory,
  deleteCell,
  deleteCellsWhere,
  findCell,
  findCellByIdempotencyKey,
  findCells,
  insertCell,
  insertPromotedCopy,
  listCells,
  lockCell,
  markSuperseded,
  sceneCellIds,
  sceneMemberCells,
} from '../store/cell-repository.js';
import type { Validity } from '../store/cell-conditions.js';
import type { CellRow } from '../store/cell-row.js';
import { searchCells } from '../store/cell-search.js';
import type { Db, Queryable } from '../store/db.js';
import { diffsSince } from '../store/diff-repository.js';
import { revokedKeyIds } from '../store/key-repository.js';
import { clearSceneConsolidation, findScene, insertScene, listScenes, lockScene, markSceneConsolidated } from '../store/scene-repository.js';
import { purgeProject } from '../store/project-purge-repository.js';
import { closeSession, insertSession } from '../store/session-repository.js';
import { toVectorParam, type VectorParam } from '../store/vector-param.js';
import { deleteSubscription, sessionSubscriptions, upsertSubscription } from '../store/resource-subscription-repository.js';
import { readableProjects, requireProject, requireRole } from './authorization.js';
import type { DiffFeed } from './diff-feed.js';
import { cellEnergy, toBeacon, toMemoryNode, toScene } from './entity-mapping.js';
import { ExtractiveSceneSummarizer } from './extractive-scene-summarizer.js';
import { defaultBeaconThresholdFor, defaultNearDuplicateSimilarityFor, facadeConfig, type FacadeConfig } from './facade-config.js';
import { GossipOutbox, type GossipChange, type OutboxSignal } from './gossip-outbox.js';
import { HitRecorder } from './hit-recorder.js';
import { LiveStreamRegistry } from './live-stream-registry.js';
import { checkStoreLimits, parseInput, parseUuid } from './input-validation.js';
import { reinforceNearDuplicate } from './near-duplicate-reinforcement.js';
import type { HydrateOption, LiveDiffListener, LiveSubscription, MemoryFacade } from './memory-facade.js';
import { decodeCursor, pageOf } from './page-cursor.js';
import type { SceneSummarizer } from './scene-summarizer.js';
import { resolveSessionScope } from './session-scope.js';
import { TenantQuotas } from './tenant-quotas.js';
import { channelState } from './channel-state.js';

export interface MemoryFacadeDeps {
  readonly db: Db;
  readonly embedder: Embedder;
  readonly config?: Partial<FacadeConfig>;
  /** Time of record for cells and beacons, energy and TTLs; injectable for tests. */
  readonly clock?: () => Date;
  /** Woken after diffs commit (the outbox relay). */
  readonly outbox?: OutboxSignal;
  /** Live push; without it subscribeDiffs is UNAVAILABLE. */
  readonly diffFeed?: DiffFeed;
  /** Told when an agent's beacons change, so a replica streaming to it can resubscribe at once. */
  readonly onBeaconsChanged?: (tenantId: string, agent: string) => void;
  readonly summarizer?: SceneSummarizer;
  readonly authCacheTtlMs?: number;
  /** Failures of background work (hit flushes, promotion). */
  readonly onBackgroundError?: (error: unknown) => void;
}

/** The facade plus what its owner (the runtime, tests) controls. */
export interface ManagedMemoryFacade extends MemoryFacade {
  readonly config: FacadeConfig;
  readonly keyAdmin: KeyAdministration;
  /** Writes batched recall hits now and runs the promotion check. */
  flushHits(): Promise<void>;
  /** Live streams open through this facade (the per-process quota counts them). */
  readonly openLiveStreams: number;
  /** Flushes hits and stops the flush timer; the db and embedder belong to the caller. */
  close(): Promise<void>;
}

const CURRENT_VERSIONS: Validity = { kind: 'current' };

export function createMemoryFacade(deps: MemoryFacadeDeps): ManagedMemoryFacade {
  const { db, embedder } = deps;
  const config = facadeConfig({
    defaultBeaconThreshold: defaultBeaconThresholdFor(embedder.modelId),
    nearDuplicateSimilarity: defaultNearDuplicateSimilarityFor(embedder.modelId),
    ...deps.config,
  });
  const clock = deps.clock ?? ((): Date => new Date());
  const table = config.energyTable;
  const keyAdmin = createKeyAdministration(db);
  const authenticator = new KeyAuthenticator(db, deps.authCacheTtlMs === undefined ? {} : { cacheTtlMs: deps.authCacheTtlMs });
  const gossip = new GossipOutbox({
    reachFactor: config.reachFactor,
    energyTable: table,
    maxInboxDiffs: config.maxInboxDiffs,
    maxBatch: config.maxBeaconCandidates,
  });
  const quotas = new TenantQuotas(config);
  const summarizer = deps.summarizer ?? new ExtractiveSceneSummarizer(embedder, config.summaryBudgetChars);
  const reportError = deps.onBackgroundError ?? ((): void => undefined);
  const streams = new LiveStreamRegistry({
    perKey: config.maxStreamsPerKey,
    perProcess: config.maxStreamsPerProcess,
    revokedAmong: (keyIds) => revokedKeyIds(db, keyIds),
    revocationCheckMs: config.streamRevocationCheckMs,
    onError: reportError,
  });

  const channel = channelState(db);

  const signal = (diffs: readonly WrittenDiff[]): void => {
    if (diffs.length > 0) deps.outbox?.diffsCommitted(diffs);
  };
  const node = (row: CellRow): MemoryNode => toMemoryNode(row, clock(), table);
  const embedOne = async (text: string): Promise<VectorParam> => {
    const [vector] = await embedder.embed([text]);
    if (vector === undefined) throw new UnavailableError('the embedder returned no vector');
    return toVectorParam(vector);
  };
  /** REST's include_superseded / as_of to the store's Validity (re-validated: a surface cannot bypass it). */
  const validityOf = (raw: ValidityInput | undefined): Validity => {
    // Every recall without REST's options comes here: the empty input's answer needs no parse.
    if (raw === undefined) return CURRENT_VERSIONS;
    const input = parseInput(validityInputSchema, raw);
    if (input.as_of !== undefined && input.include_superseded === true) {
      throw new InvalidArgumentError('as_of and include_superseded are alternatives; send one', [
        { path: 'as_of', message: 'cannot be combined with include_superseded' },
      ]);
    }
    if (input.as_of !== undefined) return { kind: 'at', asOf: input.as_of };
    return input.include_superseded === true ? { kind: 'all' } : CURRENT_VERSIONS;
  };
  const change = (row: CellRow, embedding: VectorParam): GossipChange => ({
    tenantId: row.tenant_id,
    nodeId: row.node_id,
    project: row.project,
    cellType: row.cell_type,
    salience: row.salience,
    sceneId: row.scene_id,
    sourceAgent: row.source_agent,
    content: row.content,
    embedding,
  });
  /** A cell the principal may see, else NOT_FOUND (foreign tenant and out-of-scope alike). */
  const visibleCell = async (principal: Principal, nodeId: string): Promise<CellRow> => {
    const row = await findCell(db, principal.tenantId, nodeId);
    if (row === null || !canAccessProject(principal, row.project)) throw new NotFoundError('cell', nodeId);
    return row;
  };
  const visibleScene = async (principal: Principal, sceneId: string): Promise<NonNullable<Awaited<ReturnType<typeof findScene>>>> => {
    const scene = await findScene(db, principal.tenantId, sceneId);
    if (scene === null || !canAccessProject(principal, scene.project)) throw new NotFoundError('scene', sceneId);
    return scene;
  };

  /**
   * The cell a store replaces, row-locked until commit: readable by the principal (else NOT_FOUND),
   * in the project the new cell goes to, an L0 cell, and still current — a cell has one successor,
   * so a second supersession of it is a CONFLICT naming the first.
   */
  const supersedable = async (tx: Queryable, principal: Principal, nodeId: string, project: string): Promise<CellRow> => {
    const row = await lockCell(tx, principal.tenantId, nodeId);
    if (row === null || !canAccessProject(principal, row.project)) throw new NotFoundError('cell', nodeId);
    if (row.project !== project) {
      throw new InvalidArgumentError(`cell ${nodeId} belongs to project ${row.project}, not your current project ${project}`, [
        { path: 'supersedes', message: 'the superseded cell is in another project than your current project' },
      ]);
    }
    if (row.layer !== 'L0') {
      throw new InvalidArgumentError(`cell ${nodeId} is an ${row.layer} cell; supersede the L0 cell it derives from`, [
        { path: 'supersedes', message: 'only L0 cells can be superseded' },
      ]);
    }
    if (row.valid_until !== null) {
      throw new ConflictError(`cell ${nodeId} was already superseded by ${row.superseded_by ?? 'another cell'}; supersede the current version`, {
        details: { field: 'supersedes', superseded_by: row.superseded_by },
      });
    }
    return row;
  };

  /**
   * An idempotent replay returns the original cell only to a key that may read it: another key of
   * the same agent, scoped to other projects, learns that the key was used and nothing of the cell.
   */
  const replayed = (principal: Principal, original: CellRow): MemoryNode => {
    if (!canAccessProject(principal, original.project)) {
      throw new ConflictError('this idempotency key was already used by this agent in a project outside your key scope', {
        details: { field: 'idempotency_key' },
      });
    }
    return node(original);
  };
  /** What a diff, a beacon or a session reveals is bounded by the reading key's projects, not the agent's. */
  const diffVisibleTo = (principal: Principal) => (diff: { readonly project: string }): boolean => canAccessProject(principal, diff.project);
  const beaconVisibleTo = (principal: Principal, beacon: { readonly project: string | null; readonly owner_projects: readonly string[] }): boolean =>
    beacon.project !== null ? canAccessProject(principal, beacon.project) : beacon.owner_projects.every((project) => canAccessProject(principal, project));

  const promote = async (rows: readonly CellRow[]): Promise<void> => {
    const now = clock();
    for (const row of rows) {
      if (row.layer !== 'L0' || row.promoted_node_id !== null || !PROMOTABLE_TYPES.has(row.cell_type)) continue;
      if (row.hits < config.promotion.minHits || cellEnergy(row, now, table) < config.promotion.threshold) continue;
      const diffs = await db.transaction(async (tx) => {
        const copy = await insertPromotedCopy(tx, row.tenant_id, row.node_id, randomUUID(), now);
        return copy === null ? [] : gossip.emit(tx, 'promoted', change(copy, copy.embedding), now);
      });
      signal(diffs);
    }
  };
  const hits = new HitRecorder(db, { clock, onFlushed: promote, onError: reportError });
  hits.start(config.hitFlushIntervalMs);

  const search = async (
    principal: Principal,
    input: { query: string; k: number; cell_types?: readonly MemoryNode['cell_type'][]; scene_id?: string },
    layer: MemoryNode['layer'],
    options: HydrateOption | undefined,
  ): Promise<RecallResult> => {
    const vector = await embedOne(input.query);
    const withNodes = options?.withNodes === true;
    const found = await searchCells(
      db,
      vector,
      {
        tenantId: principal.tenantId,
        project: { kind: 'current', agent: principal.agent, defaultProject: principal.defaultProject, projects: readableProjects(principal) },
        layer,
        ...(input.cell_types === undefined ? {} : { cellTypes: input.cell_types }),
        ...(input.scene_id === undefined ? {} : { sceneId: input.scene_id }),
        validity: validityOf(options?.validity),
      },
      input.k,
      withNodes,
    );
    hits.record(
      principal.tenantId,
      found.map((h) => h.node_id),
    );
    if (!withNodes) return { results: found };
    // The kNN statement returned the cells themselves: no second read by id.
    return { results: found.flatMap((h) => (h.cell === undefined ? [] : [{ node_id: h.node_id, distance: h.distance, node: node(h.cell) }])) };
  };

  return {
    config,
    keyAdmin,

    authenticate(apiKey: string): Promise<Principal> {
      return authenticator.authenticate(apiKey);
    },

    async store(principal, raw): Promise<StoredNode> {
      requireRole(principal, 'writer');
      const input = parseInput(storeInputSchema, raw);
      checkStoreLimits(input);
      const key = input.idempotency_key ?? null;
      if (key !== null) {
        const existing = await findCellByIdempotencyKey(db, principal.tenantId, principal.agent, key);
        if (existing !== null) return { ...replayed(principal, existing), reinforced: false };
      }
      const embedding = await embedOne(input.content);
      const now = clock();
      const { row, diffs, reinforced = false } = await db.transaction(async (tx): Promise<{ row: CellRow; diffs: WrittenDiff[]; reinforced?: boolean }> => {
        const scope = await resolveSessionScope(tx, principal);
        requireProject(principal, scope.project);
        let sceneId = scope.sceneId;
        if (input.scene_id !== undefined) {
          const scene = await findScene(tx, principal.tenantId, input.scene_id);
          if (scene === null || !canAccessProject(principal, scene.project)) throw new NotFoundError('scene', input.scene_id);
          if (scene.project !== scope.project) {
            throw new InvalidArgumentError(`scene ${input.scene_id} belongs to project ${scene.project}, not your current project ${scope.project}`, [
              { path: 'scene_id', message: 'scene is in another project than your current project' },
            ]);
          }
          sceneId = input.scene_id;
        }
        const superseded = input.supersedes === undefined ? null : await supersedable(tx, principal, input.supersedes, scope.project);
        if (superseded === null && config.nearDuplicateSimilarity !== null) {
          const statement = { tenantId: principal.tenantId, project: scope.project, cellType: input.cell_type, content: input.content, embedding };
          const twin = await reinforceNearDuplicate(tx, { ...statement, agent: principal.agent, trust: principal.trust, idempotencyKey: key, now }, config.nearDuplicateSimilarity);
          if (twin !== null) return { row: twin, diffs: [], reinforced: true };
        }
        await quotas.admitCell(tx, principal.tenantId);
        const inserted = await insertCell(tx, {
          nodeId: randomUUID(),
          tenantId: principal.tenantId,
          project: scope.project,
          content: input.content,
          cellType: input.cell_type,
          salience: input.salience,
          sceneId,
          sessionId: scope.sessionId,
          sourceAgent: principal.agent,
          sourceRef: input.source_ref ?? null,
          metadata: input.metadata ?? {},
          idempotencyKey: key,
          layer: 'L0',
          originNodeId: null,
          supersedes: superseded?.node_id ?? null,
          trust: principal.trust,
          embedding,
          now,
        });
        if (inserted === null) {
          // A concurrent replay of the same key won the unique index: return its cell, write nothing.
          const original = key === null ? null : await findCellByIdempotencyKey(tx, principal.tenantId, principal.agent, key);
          if (original === null) throw new ConflictError('idempotency key conflict; retry');
          replayed(principal, original);
          return { row: original, diffs: [] };
        }
        if (superseded !== null) {
          await markSuperseded(tx, principal.tenantId, superseded.node_id, inserted.node_id, now);
          return { row: inserted, diffs: await gossip.emitSupersession(tx, change(inserted, embedding), superseded.node_id, now) };
        }
        return { row: inserted, diffs: await gossip.emit(tx, 'created', change(inserted, embedding), now) };
      });
      signal(diffs);
      return { ...node(row), reinforced };
    },

    async getCell(principal, nodeId, options): Promise<MemoryNode> {
      requireRole(principal, 'reader');
      const row = await visibleCell(principal, parseUuid('node_id', nodeId));
      if (options?.asOf === undefined) return node(row);
      const asOf = Date.parse(parseInput(timestampInputSchema, options.asOf));
      const version = (await cellHistory(db, principal.tenantId, row.node_id)).find(
        (v) => Date.parse(v.valid_from) <= asOf && (v.valid_until === null || Date.parse(v.valid_until) > asOf),
      );
      if (version === undefined) throw new NotFoundError('cell', nodeId);
      return node(version);
    },

    async cellHistory(principal, nodeId): Promise<readonly MemoryNode[]> {
      requireRole(principal, 'reader');
      const row = await visibleCell(principal, parseUuid('node_id', nodeId));
      return (await cellHistory(db, principal.tenantId, row.node_id)).filter((v) => canAccessProject(principal, v.project)).map(node);
    },

    async listCells(principal, raw): Promise<Page<MemoryNode>> {
      requireRole(principal, 'reader');
      const input = parseInput(listCellsInputSchema, raw);
      const after = decodeCursor(input.cursor);
      if (input.project !== undefined && !canAccessProject(principal, input.project)) return { items: [], next_cursor: null };
      const rows = await listCells(
        db,
        principal.tenantId,
        {
          projects: readableProjects(principal),
          ...(input.project === undefined ? {} : { project: input.project }),
          ...(input.scene_id === undefined ? {} : { sceneId: input.scene_id }),
          ...(input.cell_type === undefined ? {} : { cellType: input.cell_type }),
          ...(input.layer === undefined ? {} : { layer: input.layer }),
          validity: validityOf({
            ...(input.include_superseded === undefined ? {} : { include_superseded: input.include_superseded }),
            ...(input.as_of === undefined ? {} : { as_of: input.as_of }),
          }),
        },
        after,
        input.limit,
      );
      const page = pageOf(rows, input.limit, (r) => ({ createdAt: r.created_at, id: r.node_id }));
      return { items: page.rows.map(node), next_cursor: page.next };
    },

    async deleteCell(principal, nodeId): Promise<void> {
      requireRole(principal, 'writer');
      const id = parseUuid('node_id', nodeId);
      const now = clock();
      const diffs = await db.transaction(async (tx) => {
        const row = await findCell(tx, principal.tenantId, id);
        if (row === null || !canAccessProject(principal, row.project)) throw new NotFoundError('cell', id);
        const deleted = await deleteCell(tx, principal.tenantId, id);
        if (deleted === null) throw new NotFoundError('cell', id);
        await clearSceneConsolidation(tx, principal.tenantId, id);
        return gossip.emit(tx, 'deleted', change(deleted, deleted.embedding), now);
      });
      signal(diffs);
    },

    async forgetCells(principal, raw): Promise<{ deleted: number; has_more: boolean }> {
      requireRole(principal, 'writer');
      const input = parseInput(forgetCellsInputSchema, raw);
      if ((input.scene_id === undefined) === (input.source_ref === undefined)) {
        throw new InvalidArgumentError('name what to forget: scene_id or source_ref, one of them', [
          { path: input.scene_id === undefined ? 'scene_id' : 'source_ref', message: 'send exactly one of scene_id and source_ref' },
        ]);
      }
      if (input.source_ref_kind !== undefined && input.source_ref === undefined) {
        throw new InvalidArgumentError('source_ref_kind narrows source_ref; send source_ref too', [{ path: 'source_ref_kind', message: 'needs source_ref' }]);
      }
      const now = clock();
      const { deleted, diffs } = await db.transaction(async (tx) => {
        const rows = await deleteCellsWhere(
          tx,
          principal.tenantId,
          {
            projects: readableProjects(principal),
            ...(input.scene_id === undefined ? {} : { sceneId: input.scene_id }),
            ...(input.source_ref === undefined ? {} : { sourceRefLocator: input.source_ref }),
            ...(input.source_ref_kind === undefined ? {} : { sourceRefKind: input.source_ref_kind }),
          },
          input.limit,
        );
        const written: WrittenDiff[] = [];
        for (const row of rows) {
          await clearSceneConsolidation(tx, principal.tenantId, row.node_id);
          written.push(...(await gossip.emit(tx, 'deleted', change(row, row.embedding), now)));
        }
        return { deleted: rows.length, diffs: written };
      });
      signal(diffs);
      // A full batch may have left more behind; the next call answers 0 and false when it did not.
      return { deleted, has_more: deleted === input.limit };
    },

    async purgeProject(principal, raw): Promise<PurgedProject> {
      requireRole(principal, 'admin');
      const { project } = parseInput(purgeProjectInputSchema, raw);
      requireProject(principal, project);
      // One transaction, however large the project: a purge is all or nothing, so no statement timeout.
      const purged = await db.transaction((tx) => purgeProject(tx, principal.tenantId, project), { statementTimeoutMs: 0 });
      return { project, ...purged };
    },

    async recall(principal, raw, options): Promise<RecallResult> {
      requireRole(principal, 'reader');
      const input = parseInput(recallInputSchema, raw);
      return search(principal, input, 'L0', options);
    },

    async query(principal, raw, options): Promise<RecallResult> {
      requireRole(principal, 'reader');
      const input = parseInput(queryInputSchema, raw);
      return search(principal, input, input.layer, options);
    },

    async openSession(principal, raw): Promise<SessionOpened> {
      requireRole(principal, 'writer');
      const input = parseInput(openSessionInputSchema, raw);
      requireProject(principal, input.project);
      const sceneId = randomUUID();
      const session = await db.transaction(async (tx) => {
        await quotas.admitSession(tx, principal.tenantId, principal.agent);
        await insertScene(tx, { tenantId: principal.tenantId, sceneId, project: input.project, title: input.title ?? null, createdBy: principal.agent });
        return insertSession(tx, { tenantId: principal.tenantId, sessionId: randomUUID(), agent: principal.agent, project: input.project, sceneId });
      });
      return { session_id: session.session_id, scene_id: session.scene_id, opened_at: session.opened_at };
    },

    async closeSession(principal, raw): Promise<SessionClosed> {
      requireRole(principal, 'writer');
      const input = parseInput(closeSessionInputSchema, raw);
      // Closed inside a transaction that a session out of the key's scope rolls back.
      const session = await db.transaction(async (tx) => {
        const closed = await closeSession(tx, principal.tenantId, principal.agent, input.session_id);
        if (closed === null || closed.closed_at === null || !canAccessProject(principal, closed.project)) {
          throw new NotFoundError('session', input.session_id);
        }
        return { session_id: closed.session_id, closed_at: closed.closed_at };
      });
      return session;
    },

    async getScene(principal, sceneId, options): Promise<SceneWithCells> {
      requireRole(principal, 'reader');
      const scene = await visibleScene(principal, parseUuid('scene_id', sceneId));
      const cellIds = await sceneCellIds(db, principal.tenantId, scene.scene_id, config.maxSceneCells, validityOf(options?.validity));
      const result: SceneWithCells = { ...toScene(scene), cell_ids: cellIds };
      if (options?.withNodes !== true) return result;
      const rows = new Map((await findCells(db, principal.tenantId, cellIds)).map((r) => [r.node_id, r]));
      return { ...result, cells: cellIds.flatMap((id) => (rows.has(id) ? [node(rows.get(id) as CellRow)] : [])) };
    },

    async listScenes(principal, raw): Promise<Page<Scene>> {
      requireRole(principal, 'reader');
      const input = parseInput(listScenesInputSchema, raw);
      const after = decodeCursor(input.cursor);
      if (input.project !== undefined && !canAccessProject(principal, input.project)) return { items: [], next_cursor: null };
      const rows = await listScenes(db, principal.tenantId, readableProjects(principal), input.project, after, input.limit);
      const page = pageOf(rows, input.limit, (r) => ({ createdAt: r.created_at, id: r.scene_id }));
      return { items: page.rows.map(toScene), next_cursor: page.next };
    },

    async consolidateScene(principal, sceneId): Promise<MemoryNode> {
      requireRole(principal, 'writer');
      const scene = await visibleScene(principal, parseUuid('scene_id', sceneId));
      const members = await sceneMemberCells(db, principal.tenantId, scene.scene_id, config.maxSceneCells);
      if (members.length === 0) throw new ConflictError(`scene ${scene.scene_id} has no cells to consolidate`);
      const latest = members[members.length - 1]?.created_at ?? '';
      const current = async (): Promise<CellRow | null> =>
        scene.consolidated_node_id !== null && scene.consolidated_at !== null && scene.consolidated_at >= latest
          ? findCell(db, principal.tenantId, scene.consolidated_node_id)
          : null;
      const unchanged = await current();
      if (unchanged !== null) return node(unchanged);
      const summary = await summarizer.summarize({
        title: scene.title,
        cells: members.map((m) => ({ nodeId: m.node_id, content: m.content, cellType: m.cell_type, salience: m.salience })),
      });
      const embedding = await embedOne(summary.content);
      const now = clock();
      const { row, diffs } = await db.transaction(async (tx) => {
        const locked = await lockScene(tx, principal.tenantId, scene.scene_id);
        if (locked === null) throw new NotFoundError('scene', scene.scene_id);
        if (locked.consolidated_node_id !== scene.consolidated_node_id && locked.consolidated_node_id !== null) {
          // Another consolidation of the same scene committed first: return its cell.
          const winner = await findCell(tx, principal.tenantId, locked.consolidated_node_id);
          if (winner !== null) return { row: winner, diffs: [] };
        }
        await quotas.admitCell(tx, principal.tenantId);
        const inserted = await insertCell(tx, {
          nodeId: randomUUID(),
          tenantId: principal.tenantId,
          project: scene.project,
          content: summary.content,
          cellType: summary.cellType,
          salience: summary.salience,
          sceneId: scene.scene_id,
          sessionId: null,
          sourceAgent: principal.agent,
          sourceRef: { kind: 'scene', locator: scene.scene_id },
          metadata: { consolidated_cells: members.map((m) => m.node_id) },
          idempotencyKey: null,
          layer: 'L1',
          originNodeId: null,
          trust: principal.trust,
          embedding,
          now,
        });
        if (inserted === null) throw new ConflictError('consolidation was not written; retry');
        await markSceneConsolidated(tx, principal.tenantId, scene.scene_id, inserted.node_id, now);
        return { row: inserted, diffs: await gossip.emit(tx, 'created', change(inserted, embedding), now) };
      });
      signal(diffs);
      return node(row);
    },

    async placeBeacon(principal, raw): Promise<Beacon> {
      requireRole(principal, 'reader');
      const input = parseInput(placeBeaconInputSchema, raw);
      const threshold = input.threshold ?? config.defaultBeaconThreshold;
      if (threshold < config.minBeaconThreshold) {
        throw new InvalidArgumentError(`threshold must be at least ${config.minBeaconThreshold}`, [
          { path: 'threshold', message: `below the server minimum ${config.minBeaconThreshold}` },
        ]);
      }
      if (input.project !== undefined) requireProject(principal, input.project);
      if (input.scene_id !== undefined) await visibleScene(principal, input.scene_id);
      const embedding = await embedOne(input.text);
      const now = clock();
      const row = await db.transaction(async (tx) => {
        await lockOwnerBeacons(tx, principal.tenantId, principal.agent);
        if ((await countLiveBeacons(tx, principal.tenantId, principal.agent, now)) >= config.maxBeaconsPerAgent) {
          throw new ConflictError(
            `this agent already holds ${config.maxBeaconsPerAgent} live beacons, the limit; delete one or let one expire first`,
            { details: { quota: 'beacons_per_agent', limit: config.maxBeaconsPerAgent } },
          );
        }
        return insertBeacon(tx, {
          beaconId: randomUUID(),
          tenantId: principal.tenantId,
          ownerAgent: principal.agent,
          ownerProjects: principal.projects,
          project: input.project ?? null,
          text: input.text,
          embedding,
          threshold,
          cellTypes: input.cell_types ?? null,
          sceneId: input.scene_id ?? null,
          includeOwn: input.include_own,
          expiresAt: input.ttl_seconds === undefined ? null : new Date(now.getTime() + input.ttl_seconds * 1000),
          now,
        });
      });
      deps.onBeaconsChanged?.(principal.tenantId, principal.agent);
      return toBeacon(row);
    },

    async listBeacons(principal, raw): Promise<Page<Beacon>> {
      requireRole(principal, 'reader');
      const input = parseInput(listBeaconsInputSchema, raw);
      const rows = await listOwnBeacons(db, principal.tenantId, principal.agent, clock(), decodeCursor(input.cursor), input.limit);
      const page = pageOf(rows, input.limit, (r) => ({ createdAt: r.created_at, id: r.beacon_id }));
      return { items: page.rows.filter((row) => beaconVisibleTo(principal, row)).map(toBeacon), next_cursor: page.next };
    },

    async deleteBeacon(principal, beaconId): Promise<void> {
      requireRole(principal, 'reader');
      const id = parseUuid('beacon_id', beaconId);
      await db.transaction(async (tx) => {
        const own = await findOwnBeacon(tx, principal.tenantId, principal.agent, id);
        if (own === null || !beaconVisibleTo(principal, own) || !(await deleteOwnBeacon(tx, principal.tenantId, principal.agent, id))) {
          throw new NotFoundError('beacon', id);
        }
      });
      deps.onBeaconsChanged?.(principal.tenantId, principal.agent);
    },

    async pullDiffs(principal, raw): Promise<DiffsSince> {
      requireRole(principal, 'reader');
      const input = parseInput(pullDiffsInputSchema, raw);
      const rows = await diffsSince(db, principal.tenantId, principal.agent, input.since, input.limit);
      // next_since follows the last row read, visible or not, so hidden rows never stall the reader.
      return { diffs: rows.map(toDiff).filter(diffVisibleTo(principal)), next_since: rows[rows.length - 1]?.created_at ?? input.since };
    },

    async drainInbox(principal, raw): Promise<DrainedInbox> {
      requireRole(principal, 'reader');
      const input = parseInput(drainInboxInputSchema, raw);
      const drained = await drainInbox(db, principal.tenantId, principal.agent, input.page_size);
      return { ...drained, diffs: drained.diffs.filter(diffVisibleTo(principal)) };
    },

    async peekInbox(principal, raw): Promise<InboxPeek> {
      requireRole(principal, 'reader');
      const input = parseInput(peekInboxInputSchema, raw);
      const peeked = await peekInbox(db, principal.tenantId, principal.agent, input.limit, input.after_seq);
      return { ...peeked, diffs: peeked.diffs.filter(diffVisibleTo(principal)) };
    },

    async subscribeResource(principal, raw): Promise<void> {
      requireRole(principal, 'reader');
      const input = parseInput(resourceSubscriptionInputSchema, raw);
      if (input.resource.startsWith('cell:')) await visibleCell(principal, input.resource.slice('cell:'.length));
      await upsertSubscription(db, principal.tenantId, principal.agent, input.session, input.resource);
    },

    async unsubscribeResource(principal, raw): Promise<void> {
      requireRole(principal, 'reader');
      const input = parseInput(resourceSubscriptionInputSchema, raw);
      await deleteSubscription(db, principal.tenantId, principal.agent, input.session, input.resource);
    },

    async resourceSubscriptions(principal, session): Promise<readonly string[]> {
      requireRole(principal, 'reader');
      const input = parseInput(resourceSubscriptionInputSchema, { session, resource: 'inbox' });
      return sessionSubscriptions(db, principal.tenantId, principal.agent, input.session);
    },

    async subscribeDiffs(principal: Principal, listener: LiveDiffListener, afterSeq?: number): Promise<LiveSubscription> {
      requireRole(principal, 'reader');
      const feed = deps.diffFeed;
      if (feed === undefined) throw new UnavailableError('live push not configured');
      const visible = diffVisibleTo(principal);
      return streams.open(principal.keyId, () =>
        feed.subscribe(principal.tenantId, principal.agent, (diff) => (visible(diff) ? listener(diff) : undefined), afterSeq),
      );
    },

    ...channel,

    async createKey(principal, raw): Promise<CreatedApiKey> {
      requireRole(principal, 'admin');
      const input = parseInput(createKeyInputSchema, raw);
      if (input.tenant !== principal.tenantId) throw new ForbiddenError('an admin key administers its own tenant only');
      return keyAdmin.createKey(input);
    },

    async listKeys(principal): Promise<readonly ApiKeyInfo[]> {
      requireRole(principal, 'admin');
      return keyAdmin.listKeys(principal.tenantId);
    },

    async revokeKey(principal, keyId): Promise<void> {
      requireRole(principal, 'admin');
      const id = parseUuid('key_id', keyId);
      await keyAdmin.revokeKey(id, principal.tenantId);
      authenticator.forgetKey(id);
      // Its open streams end now here; other replicas end theirs at their next revocation check.
      await streams.closeKey(id);
    },

    flushHits(): Promise<void> {
      return hits.flush();
    },

    get openLiveStreams(): number {
      return streams.openStreams;
    },

    async close(): Promise<void> {
      await streams.closeAll();
      await hits.close();
    },
  };
}
