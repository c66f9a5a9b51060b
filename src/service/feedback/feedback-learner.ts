/**
 * What the facade hands a learner after a feedback with ground truth commits (docs/feedback.md):
 * one judgement of one logged request. The facade has no learner unless one is given
 * (MemoryFacadeDeps.feedbackLearner); a learner's failure never undoes the feedback.
 */
import type { FeedbackLabel } from '../../core/feedback-schemas.js';

export interface Judgement {
  readonly tenantId: string;
  /** The project the judged request searched (the first, for a search of several at once). */
  readonly project: string;
  readonly feedbackId: string;
  readonly requestId: string;
  /** The judged query's text; null when the recall log keeps hashes only (HYPHAE_RECALL_LOG_TEXT=off). */
  readonly queryText: string | null;
  /** The judged query's embedding; null when it was made by another model than the deployment's now (after a re-embed). */
  readonly queryEmbedding: readonly number[] | null;
  /** The model the logged embedding came from. */
  readonly embeddingModel: string;
  /**
   * The true cells: each cell named, and for each source named, its chunks the request ranked — or,
   * when it ranked none, the source's current chunk nearest to the query (its first chunk without a comparable embedding).
   */
  readonly truthCellIds: readonly string[];
  /** The agent whose credential sent the feedback. */
  readonly agentId: string;
  readonly label: FeedbackLabel;
  /** The sender's trust (its key's, or its agent's for an access token). */
  readonly senderTrust: number;
}

export interface FeedbackLearner {
  learn(judgement: Judgement): Promise<void>;
}
