/**
 * Near-duplicate reinforcement (docs/memory-model.md): a store that restates a current
 * L0 cell of the same tenant, project and type — cosine similarity at least the configured one,
 * and no contrast in numbers or negation (near-duplicate-contrast.ts) — writes no cell and gossips
 * nothing: it reinforces that cell (see reinforceCell) and answers with it. Runs inside the store's
 * transaction, after its project is resolved; the reinforced row stays locked until commit.
 */
import type { CellType } from '../core/cell-types.js';
import { ConflictError } from '../core/errors.js';
import type { CellRow } from '../store/cell-row.js';
import type { Queryable } from '../store/db.js';
import { insertReinforcementKey, nearestCurrentCell, reinforceCell } from '../store/near-duplicate-repository.js';
import type { VectorParam } from '../store/vector-param.js';
import { statementsContrast } from './near-duplicate-contrast.js';

export interface Statement {
  readonly tenantId: string;
  readonly project: string;
  readonly cellType: CellType;
  readonly content: string;
  readonly embedding: VectorParam;
  readonly agent: string;
  readonly trust: number;
  readonly idempotencyKey: string | null;
  readonly now: Date;
}

/** The reinforced cell, or null when the statement is new (the caller writes it). */
export async function reinforceNearDuplicate(tx: Queryable, statement: Statement, similarity: number): Promise<CellRow | null> {
  const nearest = await nearestCurrentCell(tx, statement, statement.embedding);
  if (nearest === null || nearest.similarity < similarity || statementsContrast(nearest.content, statement.content)) return null;
  const reinforced = await reinforceCell(tx, { tenantId: statement.tenantId, nodeId: nearest.node_id, agent: statement.agent, trust: statement.trust, now: statement.now });
  if (reinforced === null) return null;
  if (statement.idempotencyKey !== null) {
    const recorded = await insertReinforcementKey(tx, statement.tenantId, statement.agent, statement.idempotencyKey, reinforced.node_id, statement.now);
    // A concurrent store with the same key committed first: roll this one back; the retry replays it.
    if (!recorded) throw new ConflictError('idempotency key conflict; retry');
  }
  return reinforced;
}
