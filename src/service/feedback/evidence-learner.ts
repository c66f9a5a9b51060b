/**
 * Learning from ground truth (docs/feedback-learning.md): a judged query becomes evidence for each
 * cell the judgement named true — its embedding kept beside the cell, weighing its sender's trust —
 * which vector and hybrid recall read (src/store/evidence-search.ts). The facade hands it each
 * feedback with ground truth once it has committed (feedback-learner.ts); off, it records nothing.
 */
import type { Db } from '../../store/db.js';
import { insertEvidence } from '../../store/cell-evidence-repository.js';
import { toVectorParam } from '../../store/vector-param.js';
import type { FeedbackLearner, Judgement } from './feedback-learner.js';

export interface EvidenceLearnerDeps {
  readonly db: Db;
  readonly clock: () => Date;
  /** The database's embedder: a query embedded by another model (logged before a re-embed) cannot be compared with its cells. */
  readonly embeddingModel: string;
  readonly enabled: boolean;
}

/** A learner recording each judgement's evidence; none when learning is off or the query's vector is not the database's model's. */
export function createEvidenceLearner(deps: EvidenceLearnerDeps): FeedbackLearner {
  const record = async (judgement: Judgement): Promise<void> => {
    const { queryEmbedding } = judgement;
    if (!deps.enabled || queryEmbedding === null || judgement.embeddingModel !== deps.embeddingModel || judgement.truthCellIds.length === 0) return;
    const trust = Math.min(1, Math.max(0, judgement.senderTrust));
    await insertEvidence(deps.db, {
      tenantId: judgement.tenantId,
      nodeIds: [...new Set(judgement.truthCellIds)],
      embedding: toVectorParam(queryEmbedding),
      weight: trust,
      trust,
      agent: judgement.agentId,
      label: judgement.label,
      requestId: judgement.requestId,
      queryText: judgement.queryText,
      now: deps.clock(),
    });
  };
  return { learn: record };
}
