/** The facade's sessions and scenes: open and close a session, read and list scenes, consolidate one into an L1 cell. */
import { randomUUID } from 'node:crypto';
import type { MemoryNode, Page, Scene, SceneWithCells, SessionClosed, SessionOpened } from '../../core/entities.js';
import { ConflictError, NotFoundError } from '../../core/errors.js';
import { canAccessProject, type Principal } from '../../core/principal.js';
import { closeSessionInputSchema, listScenesInputSchema, openSessionInputSchema } from '../../core/schemas.js';
import { findCell, findCells, sceneCellIds, sceneMemberCells } from '../../store/cell-repository.js';
import type { CellRow } from '../../store/cell-row.js';
import { insertScene, listScenes, lockScene, markSceneConsolidated, type SceneRow } from '../../store/scene-repository.js';
import { closeSession, insertSession } from '../../store/session-repository.js';
import { readableProjects, requireProject } from '../facade/authorization.js';
import { toScene } from '../facade/entity-mapping.js';
import { cellChange } from '../gossip/gossip-writer.js';
import { parseInput, parseUuid } from '../facade/input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';
import { decodeCursor, pageOf } from '../facade/page-cursor.js';
import { insertNewCell } from '../cells/cell-insert.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { validityOf } from '../facade/read-validity.js';
import { visibleScene } from '../facade/visibility.js';

export type SessionSceneOperations = Pick<MemoryFacade, 'openSession' | 'closeSession' | 'getScene' | 'listScenes' | 'consolidateScene'>;

export function sessionSceneOperations(ctx: FacadeContext): SessionSceneOperations {
  return {
    async openSession(principal, raw): Promise<SessionOpened> {
      const input = parseInput(openSessionInputSchema, raw);
      requireProject(principal, input.project);
      const sceneId = randomUUID();
      const session = await ctx.db.transaction(async (tx) => {
        await ctx.quotas.admitSession(tx, principal.tenantId, principal.agent);
        ctx.scopes.forgetAgent(principal.tenantId, principal.agent);
        await insertScene(tx, { tenantId: principal.tenantId, sceneId, project: input.project, title: input.title ?? null, createdBy: principal.agent });
        return insertSession(tx, { tenantId: principal.tenantId, sessionId: randomUUID(), agent: principal.agent, project: input.project, sceneId });
      });
      return { session_id: session.session_id, scene_id: session.scene_id, opened_at: session.opened_at };
    },

    async closeSession(principal, raw): Promise<SessionClosed> {
      const input = parseInput(closeSessionInputSchema, raw);
      // Closed inside a transaction that a session out of the key's scope rolls back.
      return ctx.db.transaction(async (tx) => {
        ctx.scopes.forgetAgent(principal.tenantId, principal.agent);
        const closed = await closeSession(tx, principal.tenantId, principal.agent, input.session_id);
        if (closed === null || closed.closed_at === null || !canAccessProject(principal, closed.project)) {
          throw new NotFoundError('session', input.session_id);
        }
        return { session_id: closed.session_id, closed_at: closed.closed_at };
      });
    },

    async getScene(principal, sceneId, options): Promise<SceneWithCells> {
      const scene = await visibleScene(ctx.db, principal, parseUuid('scene_id', sceneId));
      const cellIds = await sceneCellIds(ctx.db, principal.tenantId, scene.scene_id, ctx.config.maxSceneCells, validityOf(options?.validity));
      const result: SceneWithCells = { ...toScene(scene), cell_ids: cellIds };
      if (options?.withNodes !== true) return result;
      const rows = new Map((await findCells(ctx.db, principal.tenantId, cellIds)).map((r) => [r.node_id, r]));
      return { ...result, cells: cellIds.flatMap((id) => (rows.has(id) ? [ctx.node(rows.get(id) as CellRow)] : [])) };
    },

    async listScenes(principal, raw): Promise<Page<Scene>> {
      const input = parseInput(listScenesInputSchema, raw);
      const after = decodeCursor(input.cursor);
      if (input.project !== undefined && !canAccessProject(principal, input.project)) return { items: [], next_cursor: null };
      const rows = await listScenes(ctx.db, principal.tenantId, readableProjects(principal), input.project, after, input.limit);
      const page = pageOf(rows, input.limit, (r) => ({ createdAt: r.created_at, id: r.scene_id }));
      return { items: page.rows.map(toScene), next_cursor: page.next };
    },

    async consolidateScene(principal, sceneId): Promise<MemoryNode> {
      const scene = await visibleScene(ctx.db, principal, parseUuid('scene_id', sceneId));
      const members = await sceneMemberCells(ctx.db, principal.tenantId, scene.scene_id, ctx.config.maxSceneCells);
      if (members.length === 0) throw new ConflictError(`scene ${scene.scene_id} has no cells to consolidate`);
      const unchanged = await currentConsolidation(ctx, principal, scene, members);
      if (unchanged !== null) return ctx.node(unchanged);
      return ctx.node(await consolidate(ctx, principal, scene, members));
    },
  };
}

/** The scene's consolidation when no member cell is newer than it; null when there is none or it is stale. */
async function currentConsolidation(ctx: FacadeContext, principal: Principal, scene: SceneRow, members: readonly CellRow[]): Promise<CellRow | null> {
  const latest = members[members.length - 1]?.created_at ?? '';
  return scene.consolidated_node_id !== null && scene.consolidated_at !== null && scene.consolidated_at >= latest
    ? findCell(ctx.db, principal.tenantId, scene.consolidated_node_id)
    : null;
}

/** Summarizes the members into a new L1 cell of the scene and gossips it; a consolidation that committed first wins. */
async function consolidate(ctx: FacadeContext, principal: Principal, scene: SceneRow, members: readonly CellRow[]): Promise<CellRow> {
  const summary = await ctx.summarizer.summarize({
    title: scene.title,
    cells: members.map((m) => ({ nodeId: m.node_id, content: m.content, cellType: m.cell_type, salience: m.salience })),
  });
  const embedding = await ctx.embed(summary.content);
  const now = ctx.clock();
  const { row, diffs } = await ctx.db.transaction(async (tx) => {
    const locked = await lockScene(tx, principal.tenantId, scene.scene_id);
    if (locked === null) throw new NotFoundError('scene', scene.scene_id);
    if (locked.consolidated_node_id !== scene.consolidated_node_id && locked.consolidated_node_id !== null) {
      // Another consolidation of the same scene committed first: return its cell.
      const winner = await findCell(tx, principal.tenantId, locked.consolidated_node_id);
      if (winner !== null) return { row: winner, diffs: [] };
    }
    const inserted = await insertNewCell(
      ctx,
      tx,
      principal,
      {
        project: scene.project,
        content: summary.content,
        cellType: summary.cellType,
        salience: summary.salience,
        sceneId: scene.scene_id,
        sessionId: null,
        sourceRef: { kind: 'scene', locator: scene.scene_id },
        metadata: { consolidated_cells: members.map((m) => m.node_id) },
        idempotencyKey: null,
        layer: 'L1',
        embedding,
        // The summary quotes its members: it is forgotten with the first of them to expire.
        expiresAt: earliestExpiry(members),
      },
      now,
    );
    if (inserted === null) throw new ConflictError('consolidation was not written; retry');
    await markSceneConsolidated(tx, principal.tenantId, scene.scene_id, inserted.node_id, now);
    return { row: inserted, diffs: await ctx.gossip.emit(tx, 'created', cellChange(inserted, embedding), now) };
  });
  ctx.diffsCommitted(diffs);
  return row;
}

function earliestExpiry(members: readonly CellRow[]): Date | null {
  const instants = members.flatMap((m) => (m.expires_at === null ? [] : [Date.parse(m.expires_at)]));
  return instants.length === 0 ? null : new Date(Math.min(...instants));
}
