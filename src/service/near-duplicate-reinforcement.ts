/**
 * Reinforcement of restatements (docs/memory-model.md): a store that restates a current L0 cell of
 * the same tenant, project and type writes no cell and gossips nothing: it reinforces that cell (see
 * reinforceCell), keeps its own text and what it carried as a corroboration record of the cell, and
 * answers with the cell. A restatement is the identical text (with every embedder), or — with a
 * similarity configured — the nearest cell at that cosine similarity or above, unless the two
 * differ in a number, a negation, a name, an identifier or a swapped subject
 * (near-duplicate-contrast.ts). Runs inside the store's transaction, after its project is
 * resolved; the reinforced row stays locked until commit.
 */
import { randomUUID } from 'node:crypto';
import type { CellType } from '../core/cell-types.js';
import type { SourceRef } from '../core/entities.js';
import { ConflictError } from '../core/errors.js';
import type { CellRow } from '../store/cell-row.js';
import type { Queryable } from '../store/db.js';
import { insertReinforcementKey, reinforceCell, restatedCell } from '../store/near-duplicate-repository.js';
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
  /** What else the store carried; kept in the corroboration record. */
  readonly salience: number;
  readonly sceneId: string | null;
  readonly sessionId: string | null;
  readonly sourceRef: SourceRef | null;
  readonly metadata: Record<string, unknown>;
}

/** The reinforced cell, or null when the statement is new (the caller writes it). `similarity` null: identical statements only. */
export async function reinforceRestatement(tx: Queryable, statement: Statement, similarity: number | null): Promise<CellRow | null> {
  const found = await restatedCell(tx, statement, similarity === null ? null : statement.embedding);
  if (found === null) return null;
  if (!found.identical && (similarity === null || found.similarity < similarity || statementsContrast(found.content, statement.content) !== null)) return null;
  const reinforced = await reinforceCell(tx, {
    tenantId: statement.tenantId,
    nodeId: found.node_id,
    agent: statement.agent,
    trust: statement.trust,
    now: statement.now,
    record: {
      corroborationId: randomUUID(),
      content: statement.content,
      salience: statement.salience,
      sceneId: statement.sceneId,
      sessionId: statement.sessionId,
      sourceRef: statement.sourceRef,
      metadata: statement.metadata,
      similarity: found.similarity,
    },
  });
  if (reinforced === null) return null;
  if (statement.idempotencyKey !== null) {
    const recorded = await insertReinforcementKey(tx, statement.tenantId, statement.agent, statement.idempotencyKey, reinforced.node_id, statement.now);
    // A concurrent store with the same key committed first: roll this one back; the retry replays it.
    if (!recorded) throw new ConflictError('idempotency key conflict; retry');
  }
  return reinforced;
}
