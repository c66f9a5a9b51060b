/**
 * Erasure (docs/forgetting.md): the one code path every delete of the facade takes — a cell (or
 * its whole supersession chain), cells by id (expiry, forget), a source, what an agent wrote, a
 * project, a tenant. Each removes every copy of the text (store/erasure-repository.ts), tells the
 * recipients of its diffs that it is gone, and writes a receipt with the counts to the append-only
 * audit log. Large selectors claim their cells once, then erase them in batches, one transaction
 * each, taking turns with the stores that go on meanwhile.
 */
import { randomUUID } from 'node:crypto';
import type { ErasureReceipt } from '../../core/erasure-schemas.js';
import type { WrittenDiff } from '../../mesh/diff-writer.js';
import type { Queryable } from '../../store/db.js';
import { insertReceipt } from '../../store/erasure-receipt-repository.js';
import { addCounts, eraseCellSet, nextCellBatch, supersessionChainIds, type CellBatchFilter, type ErasedDiffs, type ErasureCounts } from '../../store/erasure-repository.js';
import { eraseAgentWritings, eraseProjectRest, eraseSourceRows, eraseTenantReceipts, eraseTenantRows, revokeTenantKeys, tenantTables } from '../../store/erasure-selector-repository.js';
import { lockSourceKey } from '../../store/source-repository.js';
import { vacuumAfterErasure } from '../../store/statistics-repository.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { ERASED_CELL_KINDS } from './erasure-actor.js';
import { claimCells, claimOf, type CellClaim } from './erasure-claim.js';
import { writeErasureNotices } from './erasure-notices.js';

/** Who asked: a key's agent, or the server itself (expiry: agent `system:expiry`, no key). */
export interface ErasureActor {
  readonly tenantId: string;
  readonly agent: string;
  readonly keyId: string | null;
}

export type ErasureSelector =
  | { readonly kind: 'cell'; readonly nodeId: string; readonly includeHistory: boolean }
  /** Cells by id; `reason` names why in the receipt (expired, scene, source_ref). */
  | { readonly kind: 'cells'; readonly nodeIds: readonly string[]; readonly reason: string }
  | { readonly kind: 'source'; readonly project: string; readonly sourceId: string }
  | { readonly kind: 'agent'; readonly agent: string }
  | { readonly kind: 'project'; readonly project: string }
  | { readonly kind: 'tenant' };

export interface ErasureOptions {
  /** Runs first inside the first transaction (a visibility check); what it throws aborts the erasure, no receipt written. */
  readonly guard?: (tx: Queryable) => Promise<void>;
}

export interface Erasure {
  erase(actor: ErasureActor, selector: ErasureSelector, options?: ErasureOptions): Promise<ErasureReceipt>;
}

/** Rows of one other table a tenant erasure deletes per transaction. */
const TENANT_ROWS_BATCH = 5_000;

export interface ErasureSettings {
  /** Cells one transaction of a bulk erasure takes at most; each holds the inboxes its notices go to until it commits. */
  readonly batchCells: number;
  /** About how long one batch may hold the connection (PGlite) or its inboxes: the next batch takes as many cells as fit at the last one's pace. */
  readonly batchMs: number;
  /** An erasure of at least this many cells vacuums the tables it deleted from once it is done (in the background). */
  readonly vacuumCells: number;
  readonly onError: (error: unknown) => void;
}

export function createErasure(ctx: Pick<FacadeContext, 'db' | 'clock' | 'diffsCommitted' | 'authenticator' | 'scopes'>, settings: ErasureSettings): Erasure {
  const { db } = ctx;
  const { batchCells } = settings;
  let vacuuming: Promise<void> | undefined;
  /** One vacuum at a time; a large erasure finishing during one is covered by the next. */
  const vacuumIfLarge = (counts: ErasureCounts): void => {
    const cells = ERASED_CELL_KINDS.reduce((sum, kind) => sum + (counts[kind] ?? 0), 0);
    if (cells < settings.vacuumCells || vacuuming !== undefined) return;
    vacuuming = vacuumAfterErasure(db)
      .catch(settings.onError)
      .finally(() => {
        vacuuming = undefined;
      });
  };

  /** One transaction: the cells' cascade and their notices, then `more` (the rest of a selector, its receipt); the outbox is woken after commit. */
  const eraseBatch = async <T>(tenantId: string, ids: (tx: Queryable) => Promise<readonly string[]>, diffs: ErasedDiffs, more: (tx: Queryable, counts: ErasureCounts) => Promise<T>): Promise<T> => {
    let written: WrittenDiff[] = [];
    const result = await db.transaction(async (tx) => {
      const erased = await eraseCellSet(tx, tenantId, await ids(tx), diffs, ctx.clock());
      written = await writeErasureNotices(tx, tenantId, erased.notices);
      return more(tx, { ...erased.counts });
    });
    ctx.diffsCommitted(written);
    return result;
  };

  /**
   * One transaction per batch. Each waits for the connection (PGlite's, or the pool's) in the
   * order it asked, behind the stores already waiting and ahead of those asking after it: the
   * erasure and the stores take turns. Yielding to the event loop instead (a timer,
   * setImmediate) starved it on PGlite, whose statements never leave the microtask queue. A batch
   * takes as many cells as the last one's pace fits in batchMs, so a store waits about that long.
   */
  const eraseInBatches = async (tenantId: string, claim: CellClaim, diffs: ErasedDiffs, counts: ErasureCounts): Promise<void> => {
    for (let size = 1; ; ) {
      const ids = claim.take(size);
      if (ids.length === 0) return;
      let started = 0;
      let took = 0;
      const batch = await eraseBatch(
        tenantId,
        async () => ((started = performance.now()), ids),
        diffs,
        async (_tx, erased) => ((took = performance.now() - started), erased),
      );
      addCounts(counts, batch);
      size = Math.max(1, Math.min(batchCells, size * 2, Math.floor((size * settings.batchMs) / Math.max(took, 0.01))));
    }
  };

  /** The cells matching `filter` when the erasure began (erasure-claim.ts). */
  const claimed = (tenantId: string, filter: CellBatchFilter): Promise<CellClaim> => claimCells(db, tenantId, filter);

  const receipt = (tx: Queryable, actor: ErasureActor, selector: ErasureSelector, counts: ErasureCounts, startedAt: Date): Promise<ErasureReceipt> =>
    insertReceipt(tx, {
      receiptId: randomUUID(),
      tenantId: actor.tenantId,
      actorAgent: actor.agent,
      actorKey: actor.keyId,
      selector: selectorRecord(selector),
      counts,
      startedAt,
      erasedAt: ctx.clock(),
    });

  return {
    async erase(actor, selector, options = {}): Promise<ErasureReceipt> {
      const made = await eraseBySelector(actor, selector, options);
      vacuumIfLarge(made.counts);
      return made;
    },
  };

  async function eraseBySelector(actor: ErasureActor, selector: ErasureSelector, options: ErasureOptions): Promise<ErasureReceipt> {
    const startedAt = ctx.clock();
    const { tenantId } = actor;
    const counts: ErasureCounts = {};
    switch (selector.kind) {
      case 'cell': {
        // A chain is one item: its versions go in one transaction, with the receipt.
        const ids = async (tx: Queryable): Promise<string[]> => {
          await options.guard?.(tx);
          return selector.includeHistory ? supersessionChainIds(tx, tenantId, selector.nodeId) : [selector.nodeId];
        };
        return eraseBatch(tenantId, ids, 'tombstone', (tx, erased) => receipt(tx, actor, selector, erased, startedAt));
      }
      case 'cells': {
        await options.guard?.(db);
        await eraseInBatches(tenantId, claimOf(selector.nodeIds), 'tombstone', counts);
        return db.transaction((tx) => receipt(tx, actor, selector, counts, startedAt));
      }
      case 'source': {
        // One transaction under the source's lock, so an ingestion swapping chunks in cannot interleave.
        const key = { tenantId, project: selector.project, sourceId: selector.sourceId };
        const chunks = async (tx: Queryable): Promise<string[]> => {
          await options.guard?.(tx);
          await lockSourceKey(tx, key);
          return nextCellBatch(tx, tenantId, { project: key.project, sourceId: key.sourceId }, Number.MAX_SAFE_INTEGER);
        };
        return eraseBatch(tenantId, chunks, 'tombstone', async (tx, erased) =>
          receipt(tx, actor, selector, addCounts(erased, await eraseSourceRows(tx, tenantId, key.project, key.sourceId)), startedAt),
        );
      }
      case 'agent': {
        await eraseInBatches(tenantId, await claimed(tenantId, { agent: selector.agent }), 'tombstone', counts);
        return db.transaction(async (tx) => receipt(tx, actor, selector, addCounts(counts, await eraseAgentWritings(tx, tenantId, selector.agent)), startedAt));
      }
      case 'project': {
        await eraseInBatches(tenantId, await claimed(tenantId, { project: selector.project }), 'delete', counts);
        const made = await db.transaction(async (tx) => receipt(tx, actor, selector, addCounts(counts, await eraseProjectRest(tx, tenantId, selector.project)), startedAt));
        ctx.scopes.forgetTenant(tenantId);
        return made;
      }
      case 'tenant':
        return eraseTenant(actor, selector, counts, startedAt);
    }
  }

  async function eraseTenant(actor: ErasureActor, selector: ErasureSelector, counts: ErasureCounts, startedAt: Date): Promise<ErasureReceipt> {
    const { tenantId } = actor;
    await eraseInBatches(tenantId, await claimed(tenantId, {}), 'delete', counts);
    for (const table of await tenantTables(db)) {
      for (;;) {
        const gone = await db.transaction((tx) => eraseTenantRows(tx, table, tenantId, TENANT_ROWS_BATCH));
        addCounts(counts, gone);
        if (Object.values(gone).every((n) => n === 0)) break;
      }
    }
    let revoked: string[] = [];
    const made = await db.transaction(async (tx) => {
      revoked = await revokeTenantKeys(tx, tenantId, ctx.clock());
      addCounts(counts, { keys_revoked: revoked.length });
      addCounts(counts, await eraseTenantReceipts(tx, tenantId));
      return receipt(tx, actor, selector, counts, startedAt);
    });
    for (const keyId of revoked) ctx.authenticator.forgetKey(keyId);
    ctx.scopes.forgetTenant(tenantId);
    return made;
  }
}

/** The selector as the receipt records it: its kind and identifiers, in the wire's words. */
function selectorRecord(selector: ErasureSelector): Record<string, unknown> {
  switch (selector.kind) {
    case 'cell':
      return { kind: 'cell', node_id: selector.nodeId, include_history: selector.includeHistory };
    case 'cells':
      return { kind: 'cells', reason: selector.reason, node_ids: selector.nodeIds };
    case 'source':
      return { kind: 'source', project: selector.project, source_id: selector.sourceId };
    case 'agent':
      return { kind: 'agent', agent: selector.agent };
    case 'project':
      return { kind: 'project', project: selector.project };
    case 'tenant':
      return { kind: 'tenant' };
  }
}
