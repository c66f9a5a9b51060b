/**
 * The expiry sweep's eraser until the erasure path lands (docs/expiry.md): each expired cell is
 * deleted with what cascades from it, and each beacon that received a diff of it gets a `deleted`
 * diff without text; an expired source goes with its chunks and any pending ingestion.
 */
import type { WrittenDiff } from '../../mesh/diff-writer.js';
import { writeDiffs } from '../../mesh/diff-writer.js';
import { beaconsThatReceived } from '../../store/beacon-repository.js';
import { deleteCell } from '../../store/cell-repository.js';
import { clearSceneConsolidation } from '../../store/scene-repository.js';
import { deleteSourceChunks, deleteSourceRows, lockSourceKey } from '../../store/source-repository.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { cellChange } from '../gossip/gossip-writer.js';
import type { ExpiredItemEraser } from './expiry-sweep.js';

export function directExpiryEraser(ctx: Pick<FacadeContext, 'db' | 'clock' | 'diffsCommitted' | 'config'>): ExpiredItemEraser {
  return {
    async cells(tenantId, nodeIds): Promise<number> {
      const now = ctx.clock();
      const { erased, diffs } = await ctx.db.transaction(async (tx) => {
        const written: WrittenDiff[] = [];
        let count = 0;
        for (const nodeId of nodeIds) {
          const deleted = await deleteCell(tx, tenantId, nodeId);
          if (deleted === null) continue;
          count += 1;
          await clearSceneConsolidation(tx, tenantId, nodeId);
          const told = await beaconsThatReceived(tx, tenantId, nodeId, deleted.embedding, now);
          const audience = told.map((b) => ({ beaconId: b.beacon_id, ownerAgent: b.owner_agent, similarity: b.similarity }));
          // The notice carries no text: the cell expired.
          const change = { ...cellChange(deleted, deleted.embedding), content: '' };
          if (audience.length > 0) written.push(...(await writeDiffs(tx, 'deleted', change, audience, null, { maxInboxDiffs: ctx.config.maxInboxDiffs })));
        }
        return { erased: count, diffs: written };
      });
      ctx.diffsCommitted(diffs);
      return erased;
    },

    async source(tenantId, project, sourceId): Promise<void> {
      const key = { tenantId, project, sourceId };
      await ctx.db.transaction(async (tx) => {
        await lockSourceKey(tx, key);
        await deleteSourceChunks(tx, key);
        await deleteSourceRows(tx, key);
      });
    },
  };
}
