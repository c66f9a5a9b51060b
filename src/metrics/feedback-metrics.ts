/**
 * Retrieval quality on real traffic (docs/feedback.md): counters of feedback and of judged
 * requests by where their truth ranked, from which recording rules derive recall@1, recall@5, MRR
 * and the share not surfaced over any window. Labels: `label` (agent or human), and `tenant` only
 * when the operator asks for it (HYPHAE_METRICS_TENANT_LABEL=on); never query text or ids.
 */
import { Counter, type Registry } from 'prom-client';

export const FEEDBACK_SENDER_LABELS = ['agent', 'human'] as const;
export type FeedbackSenderLabel = (typeof FEEDBACK_SENDER_LABELS)[number];
/** The ranks a truth is counted within: first, top five, anywhere in the answer. */
export const TRUTH_WITHIN = ['1', '5', 'any'] as const;

export interface FeedbackJudgement {
  readonly tenantId: string;
  readonly label: FeedbackSenderLabel;
  readonly judged: boolean;
  /** 1-based; null when the truth was not surfaced. */
  readonly truthRank: number | null;
}

export interface FeedbackMetrics {
  /** One recorded feedback: counted, and when judged, by where its truth ranked. */
  observeFeedback(judgement: FeedbackJudgement): void;
}

export function registerFeedbackMetrics(registry: Registry, tenantLabel: boolean): FeedbackMetrics {
  const labelNames = tenantLabel ? (['label', 'tenant'] as const) : (['label'] as const);
  const feedback = new Counter({ name: 'hyphae_feedback_total', help: 'Feedback recorded on recall and query answers, by sender label', labelNames, registers: [registry] });
  const judged = new Counter({ name: 'hyphae_feedback_judged_total', help: 'Feedback with ground-truth ids: judged requests', labelNames, registers: [registry] });
  const found = new Counter({
    name: 'hyphae_feedback_truth_found_total',
    help: 'Judged requests whose first true item ranked within 1, within 5, or anywhere in the answer',
    labelNames: [...labelNames, 'within'],
    registers: [registry],
  });
  const reciprocal = new Counter({ name: 'hyphae_feedback_reciprocal_rank_total', help: 'Sum over judged requests of 1 / the rank of the first true item (0 when not surfaced): MRR = this / judged', labelNames, registers: [registry] });
  if (!tenantLabel) {
    for (const label of FEEDBACK_SENDER_LABELS) {
      feedback.inc({ label }, 0);
      judged.inc({ label }, 0);
      reciprocal.inc({ label }, 0);
      for (const within of TRUTH_WITHIN) found.inc({ label, within }, 0);
    }
  }
  return {
    observeFeedback({ tenantId, label, judged: isJudged, truthRank }): void {
      const labels = tenantLabel ? { label, tenant: tenantId } : { label };
      feedback.inc(labels);
      if (!isJudged) return;
      judged.inc(labels);
      if (truthRank === null) return;
      reciprocal.inc(labels, 1 / truthRank);
      found.inc({ ...labels, within: 'any' });
      if (truthRank <= 5) found.inc({ ...labels, within: '5' });
      if (truthRank === 1) found.inc({ ...labels, within: '1' });
    },
  };
}
