/**
 * Learning from ground truth (docs/feedback-learning.md): a judged query becomes evidence for each
 * cell the judgement named true — its embedding kept beside the cell, weighing its sender's trust —
 * which vector and hybrid recall read (src/store/evidence-search.ts). Off, it records nothing.
 */
import type { Db } from '../../store/db.js';
import { insertEvidence, type EvidenceLabel } from '../../store/cell-evidence-repository.js';
import type { VectorParam } from '../../store/vector-param.js';

/** What the learner needs of one judgement with ground truth; the feedback concern builds it from the request log. */
export interface JudgedQuery {
  readonly tenantId: string;
  readonly requestId: string;
  /** The judged query's embedding as the request log kept it, and the model that made it. */
  readonly queryEmbedding: VectorParam;
  readonly embeddingModel: string;
  /** The judged query's text; null when the log kept only its hash (the evidence cannot then be re-embedded). */
  readonly queryText: string | null;
  /** Cells the sender named true and may read (sources resolved to their chunks by the feedback concern). */
  readonly truthCellIds: readonly string[];
  readonly agentId: string;
  readonly label: EvidenceLabel;
  /** The sender's trust in [0, 1]: what its evidence weighs. */
  readonly senderTrust: number;
}

export interface EvidenceLearner {
  /** Records the judgement's evidence; returns the cells that received it (none when learning is off or the query's model is not the database's). */
  learn(judged: JudgedQuery): Promise<readonly string[]>;
}

export interface EvidenceLearnerDeps {
  readonly db: Db;
  readonly clock: () => Date;
  /** The database's embedder: a query embedded by another model (logged before a re-embed) cannot be compared with its cells. */
  readonly embeddingModel: string;
  readonly enabled: boolean;
}

export function createEvidenceLearner(deps: EvidenceLearnerDeps): EvidenceLearner {
  return {
    async learn(judged): Promise<readonly string[]> {
      if (!deps.enabled || judged.embeddingModel !== deps.embeddingModel || judged.truthCellIds.length === 0) return [];
      const trust = Math.min(1, Math.max(0, judged.senderTrust));
      return insertEvidence(deps.db, {
        tenantId: judged.tenantId,
        nodeIds: [...new Set(judged.truthCellIds)],
        embedding: judged.queryEmbedding,
        weight: trust,
        trust,
        agent: judged.agentId,
        label: judged.label,
        requestId: judged.requestId,
        queryText: judged.queryText,
        now: deps.clock(),
      });
    },
  };
}
