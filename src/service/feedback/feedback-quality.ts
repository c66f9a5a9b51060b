/**
 * Retrieval quality on the tenant's judged requests (docs/feedback.md): the curve per day and
 * sender label, and the worst-judged requests with their query, what they returned and what was
 * true. Admin only (it shows other agents' queries), within the key's projects.
 */
import { feedbackQualityInputSchema, type FeedbackQuality } from '../../core/feedback-quality-schemas.js';
import { qualityByDay, worstJudged } from '../../store/feedback-quality-repository.js';
import { readableProjects } from '../facade/authorization.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { parseInput } from '../facade/input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';

const DAY_MS = 86_400_000;

export type FeedbackQualityOperations = Pick<MemoryFacade, 'feedbackQuality'>;

export function feedbackQualityOperations(ctx: FacadeContext): FeedbackQualityOperations {
  return {
    async feedbackQuality(principal, raw): Promise<FeedbackQuality> {
      const input = parseInput(feedbackQualityInputSchema, raw);
      const now = ctx.clock();
      const since = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()) - (input.days - 1) * DAY_MS);
      const projects = readableProjects(principal);
      const [days, worst] = await Promise.all([qualityByDay(ctx.db, principal.tenantId, projects, since), worstJudged(ctx.db, principal.tenantId, projects, since, input.worst)]);
      return {
        days: days.map((d) => ({
          day: d.day,
          label: d.label,
          judged: d.judged,
          recall_at_1: d.first / d.judged,
          recall_at_5: d.topFive / d.judged,
          mrr: d.reciprocalSum / d.judged,
          not_surfaced: d.missed / d.judged,
        })),
        worst: worst.map((w) => ({
          request_id: w.requestId,
          query: w.queryText,
          label: w.label,
          agent: w.agent,
          returned: [...w.returned],
          truth: [...w.truth],
          truth_rank: w.truthRank,
          created_at: w.createdAt,
        })),
      };
    },
  };
}
