/** The facade's cell writes: store (with supersession and restatement), delete, forget, purge, and promotion. */
import { randomUUID } from 'node:crypto';
import { PROMOTABLE_TYPES } from '../../core/cell-types.js';
import type { PurgedProject, StoredNode } from '../../core/entities.js';
import { ConflictError, InvalidArgumentError } from '../../core/errors.js';
import { expiryOf } from '../../core/expiry.js';
import type { Principal } from '../../core/principal.js';
import { forgetCellsInputSchema, purgeProjectInputSchema, storeInputSchema, type StoreInput } from '../../core/schemas.js';
import type { WrittenDiff } from '../../mesh/diff-writer.js';
import { deleteCellOptionsSchema, type ErasureReceipt } from '../../core/erasure-schemas.js';
import { ERASED_CELL_KINDS, erasureActor } from '../erasure/erasure-actor.js';
import { cellIdsWhere, findCellByIdempotencyKey, insertPromotedCopy, markSuperseded } from '../../store/cell-repository.js';
import type { CellRow } from '../../store/cell-row.js';
import type { Queryable } from '../../store/db.js';
import { setTransactionEfSearch } from '../../store/knn-session.js';
import type { VectorParam } from '../../store/vector-param.js';
import { readableProjects, requireProject } from '../facade/authorization.js';
import { cellEnergy } from '../facade/entity-mapping.js';
import { cellChange } from '../gossip/gossip-writer.js';
import { checkStoreLimits, parseInput, parseUuid } from '../facade/input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';
import { checkedRelations, declareRelations } from '../relations/declared-relations.js';
import { applyRestatement } from './restatement.js';
import { insertNewCell } from './cell-insert.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { replayable, supersedable, visibleCell, visibleScene } from '../facade/visibility.js';

/**
 * ef_search of a store's restatement probe. It asks for one neighbour at similarity ≥ 0.85 —
 * so near that the graph walk reaches it from few candidates — not for a ranked list, and the
 * session's 40 cost 4× the walk (docs/storage.md, the store path).
 */
const RESTATEMENT_EF_SEARCH = 10;

export type CellWriteOperations = Pick<MemoryFacade, 'store' | 'deleteCell' | 'forgetCells' | 'purgeProject'>;

export function cellWriteOperations(ctx: FacadeContext): CellWriteOperations {
  return {
    async store(principal, raw): Promise<StoredNode> {
      const input = parseInput(storeInputSchema, raw);
      checkStoreLimits(input);
      // Refused before anything is read or embedded; the transaction computes it again at the store's instant.
      expiryOf(input, ctx.config.retentionDefaults[input.cell_type], ctx.clock());
      const key = input.idempotency_key ?? null;
      if (key !== null) {
        const existing = await findCellByIdempotencyKey(ctx.db, principal.tenantId, principal.agent, key);
        if (existing !== null) return { ...ctx.node(replayable(principal, existing)), reinforced: false };
      }
      const embedding = await ctx.embed(input.content);
      const now = ctx.stamps.next();
      const { row, diffs, reinforced = false } = await ctx.db.transaction((tx) => writeStore(ctx, tx, principal, input, embedding, now));
      ctx.diffsCommitted(diffs);
      return { ...ctx.node(row), reinforced };
    },

    async deleteCell(principal, nodeId, options = {}): Promise<ErasureReceipt> {
      const id = parseUuid('node_id', nodeId);
      const { include_history: includeHistory } = parseInput(deleteCellOptionsSchema, options);
      const guard = async (tx: Queryable): Promise<void> => void (await visibleCell(tx, principal, id));
      return ctx.erasure.erase(erasureActor(principal), { kind: 'cell', nodeId: id, includeHistory }, { guard });
    },

    async forgetCells(principal, raw): Promise<{ deleted: number; has_more: boolean }> {
      const input = parseInput(forgetCellsInputSchema, raw);
      if ((input.scene_id === undefined) === (input.source_ref === undefined)) {
        throw new InvalidArgumentError('name what to forget: scene_id or source_ref, one of them', [
          { path: input.scene_id === undefined ? 'scene_id' : 'source_ref', message: 'send exactly one of scene_id and source_ref' },
        ]);
      }
      if (input.source_ref_kind !== undefined && input.source_ref === undefined) {
        throw new InvalidArgumentError('source_ref_kind narrows source_ref; send source_ref too', [{ path: 'source_ref_kind', message: 'needs source_ref' }]);
      }
      const ids = await cellIdsWhere(
        ctx.db,
        principal.tenantId,
        {
          projects: readableProjects(principal),
          ...(input.scene_id === undefined ? {} : { sceneId: input.scene_id }),
          ...(input.source_ref === undefined ? {} : { sourceRefLocator: input.source_ref }),
          ...(input.source_ref_kind === undefined ? {} : { sourceRefKind: input.source_ref_kind }),
        },
        input.limit,
      );
      const reason = input.scene_id === undefined ? 'source_ref' : 'scene';
      const made = ids.length === 0 ? null : await ctx.erasure.erase(erasureActor(principal), { kind: 'cells', nodeIds: ids, reason });
      const deleted = made === null ? 0 : ERASED_CELL_KINDS.reduce((sum, kind) => sum + (made.counts[kind] ?? 0), 0);
      // A full batch may have left more behind; the next call answers 0 and false when it did not.
      return { deleted, has_more: ids.length === input.limit };
    },

    async purgeProject(principal, raw): Promise<PurgedProject> {
      const { project } = parseInput(purgeProjectInputSchema, raw);
      requireProject(principal, project);
      const receipt = await ctx.erasure.erase(erasureActor(principal), { kind: 'project', project });
      const { counts } = receipt;
      const cells = ERASED_CELL_KINDS.reduce((sum, kind) => sum + (counts[kind] ?? 0), 0);
      return { project, cells, scenes: counts.scenes ?? 0, sessions: counts.sessions ?? 0, beacons: counts.beacons ?? 0, diffs: counts.diffs ?? 0, receipt };
    },
  };
}

interface StoreOutcome {
  readonly row: CellRow;
  readonly diffs: WrittenDiff[];
  readonly reinforced?: boolean;
}

/** The store's transaction: its project and scene, then a supersession, a restatement or a new cell, and its diffs. */
async function writeStore(ctx: FacadeContext, tx: Queryable, principal: Principal, input: StoreInput, embedding: VectorParam, now: Date): Promise<StoreOutcome> {
  const scope = await ctx.scopes.resolve(tx, principal);
  requireProject(principal, scope.project);
  const sceneId = input.scene_id === undefined ? scope.sceneId : await sceneOfCurrentProject(tx, principal, input.scene_id, scope.project);
  const superseded = input.supersedes === undefined ? null : await supersedable(tx, principal, input.supersedes, scope.project);
  const key = input.idempotency_key ?? null;
  // A replay whose original committed since the check before this transaction: return it, or it would reinforce its own cell.
  const replayed = key === null ? null : await findCellByIdempotencyKey(tx, principal.tenantId, principal.agent, key);
  if (replayed !== null) return { row: replayable(principal, replayed), diffs: [] };
  const expiresAt = expiryOf(input, ctx.config.retentionDefaults[input.cell_type], now);
  // An expiring store is its own cell: a restatement's text lives as long as the cell it reinforces (docs/expiry.md).
  if (superseded === null && expiresAt === null) {
    if (ctx.config.restatementSimilarity !== null) await setTransactionEfSearch(tx, RESTATEMENT_EF_SEARCH);
    const candidate = {
      tenantId: principal.tenantId,
      project: scope.project,
      cellType: input.cell_type,
      content: input.content,
      embedding,
      agent: principal.agent,
      trust: principal.trust,
      idempotencyKey: key,
      now,
      salience: input.salience,
      sceneId,
      sessionId: scope.sessionId,
      sourceRef: input.source_ref ?? null,
      metadata: input.metadata ?? {},
    };
    const restated = await applyRestatement(tx, candidate, ctx.config.restatementSimilarity);
    if (restated !== null && restated.replay) return { row: replayable(principal, restated.row), diffs: [] };
    if (restated !== null) {
      await declareRelations(tx, principal, restated.row.node_id, input.relations ?? [], now);
      return { row: restated.row, diffs: [], reinforced: true };
    }
  }
  const relations = checkedRelations(null, input.relations ?? [], now);
  const inserted = await insertNewCell(
    ctx,
    tx,
    principal,
    {
      project: scope.project,
      content: input.content,
      cellType: input.cell_type,
      salience: input.salience,
      sceneId,
      sessionId: scope.sessionId,
      sourceRef: input.source_ref ?? null,
      metadata: input.metadata ?? {},
      idempotencyKey: key,
      layer: 'L0',
      supersedes: superseded?.node_id ?? null,
      embedding,
      expiresAt,
    },
    now,
    relations,
  );
  if (inserted === null) {
    // A concurrent replay of the same key won the unique index: return its cell, write nothing.
    const original = key === null ? null : await findCellByIdempotencyKey(tx, principal.tenantId, principal.agent, key);
    if (original === null) throw new ConflictError('idempotency key conflict; retry');
    return { row: replayable(principal, original), diffs: [] };
  }
  if (superseded !== null) {
    await markSuperseded(tx, principal.tenantId, superseded.node_id, inserted.node_id, now);
    return { row: inserted, diffs: await ctx.gossip.emitSupersession(tx, cellChange(inserted, embedding), superseded.node_id, now) };
  }
  return { row: inserted, diffs: await ctx.gossip.emit(tx, 'created', cellChange(inserted, embedding), now) };
}

/** A scene a store names: one the principal can see, in the project the cell goes to. */
async function sceneOfCurrentProject(tx: Queryable, principal: Principal, sceneId: string, project: string): Promise<string> {
  const scene = await visibleScene(tx, principal, sceneId);
  if (scene.project !== project) {
    throw new InvalidArgumentError(`scene ${sceneId} belongs to project ${scene.project}, not your current project ${project}`, [
      { path: 'scene_id', message: 'scene is in another project than your current project' },
    ]);
  }
  return sceneId;
}

/** After a hit flush: writes the L2 copy of each current L0 cell of a promotable type that reached the promotion policy, and gossips it. */
export async function promoteHitCells(ctx: FacadeContext, rows: readonly CellRow[]): Promise<void> {
  const now = ctx.clock();
  const { promotion, energyTable } = ctx.config;
  for (const row of rows) {
    if (row.layer !== 'L0' || row.promoted_node_id !== null || !PROMOTABLE_TYPES.has(row.cell_type)) continue;
    if (row.hits < promotion.minHits || cellEnergy(row, now, energyTable) < promotion.threshold) continue;
    const diffs = await ctx.db.transaction(async (tx) => {
      const copy = await insertPromotedCopy(tx, row.tenant_id, row.node_id, randomUUID(), now);
      return copy === null ? [] : ctx.gossip.emit(tx, 'promoted', cellChange(copy, copy.embedding), now);
    });
    ctx.diffsCommitted(diffs);
  }
}
