/**
 * The world an expiry test reads (docs/expiry.md): a kept cell, and a canary cell stored with a
 * short ttl into a scene, related from the kept cell and gossiped to watchers' inboxes; and every
 * read path of the facade that can return the canary, each answering whether it did.
 */
import { randomUUID } from 'node:crypto';
import type { Principal } from '../../src/core/principal.js';
import type { MemoryFacade } from '../../src/service/index.js';

export interface ExpiryWorld {
  readonly facade: MemoryFacade;
  readonly admin: Principal;
  readonly watcher: Principal;
  /** Watchers whose inbox a drain reads once each (a drain consumes what it reads). */
  readonly drainers: Principal[];
  readonly canary: string;
  readonly canaryId: string;
  readonly keptId: string;
  readonly sceneId: string;
  readonly expiresAt: string;
}

/** Stores the world; the canary expires `ttlSeconds` after its store. */
export async function expiryWorld(facade: MemoryFacade, admin: Principal, watcher: Principal, drainers: Principal[], ttlSeconds: number): Promise<ExpiryWorld> {
  const canary = `expiry canary ${randomUUID().slice(0, 8)} quartzlantern the cache warms at dawn`;
  for (const agent of [watcher, ...drainers]) await facade.placeBeacon(agent, { text: 'expiry canary quartzlantern the cache warms at dawn', threshold: 0.3, include_own: false });
  const kept = await facade.store(admin, { content: 'kept anchor: the deploy runbook lives in ops/runbook.md', cell_type: 'Fact', salience: 0.5 });
  const { scene_id: sceneId } = await facade.openSession(admin, { project: 'default', title: 'expiry scene' });
  const stored = await facade.store(admin, { content: canary, cell_type: 'Fact', salience: 0.9, ttl_seconds: ttlSeconds });
  await facade.addRelations(admin, kept.node_id, { relations: [{ to: stored.node_id, type: 'answers' }] });
  if (stored.expires_at === null) throw new Error('the store answered no expires_at');
  return { facade, admin, watcher, drainers: [...drainers], canary, canaryId: stored.node_id, keptId: kept.node_id, sceneId, expiresAt: stored.expires_at };
}

/** What a read path answered, and whether the canary is in it by its text or, for paths that answer ids, by its id. */
export interface ReadPath {
  readonly match: 'text' | 'id';
  read(world: ExpiryWorld): Promise<unknown>;
}

const text = (read: ReadPath['read']): ReadPath => ({ match: 'text', read });
const id = (read: ReadPath['read']): ReadPath => ({ match: 'id', read });

async function collect(stream: AsyncIterable<string>): Promise<string> {
  let all = '';
  for await (const part of stream) all += part;
  return all;
}

/** Every facade read that can return a stored cell, keyed `operation:variant`. */
export const READ_PATHS: Readonly<Record<string, ReadPath>> = {
  'getCell': text((w) => w.facade.getCell(w.admin, w.canaryId).catch(() => null)),
  'cellHistory': text((w) => w.facade.cellHistory(w.admin, w.canaryId).catch(() => null)),
  'listCells': text((w) => w.facade.listCells(w.admin, { limit: 200 })),
  'recall:vector': id((w) => w.facade.recall(w.admin, { query: w.canary, k: 5, mode: 'vector' })),
  'recall:lexical': id((w) => w.facade.recall(w.admin, { query: w.canary, k: 5, mode: 'lexical' })),
  'recall:hybrid': id((w) => w.facade.recall(w.admin, { query: w.canary, k: 5, mode: 'hybrid' })),
  'recall:nodes': text((w) => w.facade.recall(w.admin, { query: w.canary, k: 5 }, { withNodes: true })),
  'recall:graph_context': id((w) => w.facade.recall(w.admin, { query: 'kept anchor deploy runbook', k: 5, graph_context: true })),
  'query': id((w) => w.facade.query(w.admin, { query: w.canary, k: 5, layer: 'L0' })),
  'getScene': text((w) => w.facade.getScene(w.admin, w.sceneId, { withNodes: true })),
  'listScenes': text(async (w) => {
    const page = await w.facade.listScenes(w.admin, { limit: 50 });
    // The scene counts its live cells: the canary is its only one.
    return page.items.some((scene) => scene.scene_id === w.sceneId && scene.cell_count === 1) ? w.canary : '';
  }),
  'pullDiffs': text((w) => w.facade.pullDiffs(w.watcher, { since: '2000-01-01T00:00:00Z', limit: 100 })),
  'peekInbox': text((w) => w.facade.peekInbox(w.watcher, { limit: 100 })),
  'drainInbox': text(async (w) => {
    const drainer = w.drainers.shift();
    return drainer === undefined ? null : w.facade.drainInbox(drainer, { page_size: 100 });
  }),
  'recentGossip': text((w) => w.facade.recentGossip(w.admin, { limit: 100 })),
  'cellRelations': id((w) => w.facade.cellRelations(w.admin, w.keptId)),
  'cellSubgraph': text((w) => w.facade.cellSubgraph(w.admin, w.keptId, { depth: 2 })),
  'exportTenant': text(async (w) => collect(await w.facade.exportTenant(w.admin, { with_vectors: false }))),
};

/** Whether the read path answered the canary. */
export async function seenBy(path: ReadPath, world: ExpiryWorld): Promise<boolean> {
  const answer = JSON.stringify(await path.read(world)) ?? '';
  return answer.includes(path.match === 'text' ? world.canary : world.canaryId);
}
