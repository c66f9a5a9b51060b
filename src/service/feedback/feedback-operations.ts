/**
 * The facade's feedback (docs/feedback.md): a report on one logged request — a rating, text, a
 * ground-truth answer, ground-truth ids — recorded and labelled by the credential that sent it.
 * Refused before anything is read when it carries neither text nor ground truth; a request of
 * another tenant, or outside the caller's projects, reads as unknown; ground-truth ids the caller
 * cannot read are refused like missing ones. It never changes the request or any cell; with ground
 * truth it is also handed to the learner, if there is one, once it has committed.
 */
import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, NotFoundError } from '../../core/errors.js';
import { FEEDBACK_EMPTY_REASON, feedbackInputSchema, type FeedbackReceipt } from '../../core/feedback-schemas.js';
import { canAccessProject, type Principal } from '../../core/principal.js';
import { insertFeedback } from '../../store/feedback-repository.js';
import { findRecallRequest, type RecallLogRow } from '../../store/recall-log-repository.js';
import { toVectorParam } from '../../store/vector-param.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { parseInput } from '../facade/input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';
import type { FeedbackLearner, Judgement } from './feedback-learner.js';
import { resolveGroundTruth, truthCellsForLearning, truthRank } from './ground-truth.js';

export type FeedbackOperations = Pick<MemoryFacade, 'submitFeedback'>;

export function feedbackOperations(ctx: FacadeContext, learner: FeedbackLearner | undefined, onLearnerError: (error: unknown) => void = () => undefined): FeedbackOperations {
  return {
    async submitFeedback(principal, raw): Promise<FeedbackReceipt> {
      const input = parseInput(feedbackInputSchema, raw);
      if (input.feedback === undefined && input.ground_truth_answer === undefined && input.ground_truth_ids === undefined) {
        throw new InvalidArgumentError('feedback needs text (feedback), a ground_truth_answer or ground_truth_ids', [{ path: 'feedback', message: 'send feedback text, a ground_truth_answer, ground_truth_ids, or several' }], {
          details: { reason: FEEDBACK_EMPTY_REASON },
        });
      }
      const request = await judgeableRequest(ctx, principal, input.request_id);
      const truth = input.ground_truth_ids === undefined ? undefined : await resolveGroundTruth(ctx.db, principal, request, input.ground_truth_ids);
      const judged = truth === undefined ? undefined : await truthRank(ctx.db, principal.tenantId, request, truth);
      const sameModel = request.embeddingModel === ctx.embedder.modelId;
      const truthCellIds =
        truth === undefined || judged === undefined ? [] : await truthCellsForLearning(ctx.db, principal.tenantId, request, truth, judged.rankedChunks, sameModel ? toVectorParam(request.queryEmbedding) : null);
      const receipt: FeedbackReceipt = {
        feedback_id: randomUUID(),
        request_id: request.requestId,
        label: principal.human === true ? 'human' : 'agent',
        judged: truth !== undefined,
        truth_rank: judged?.rank ?? null,
        created_at: ctx.clock().toISOString(),
      };
      await insertFeedback(ctx.db, {
        tenantId: principal.tenantId,
        feedbackId: receipt.feedback_id,
        requestId: receipt.request_id,
        agent: principal.agent,
        label: receipt.label,
        senderTrust: principal.trust,
        rating: input.rating ?? null,
        feedback: input.feedback ?? null,
        groundTruthAnswer: input.ground_truth_answer ?? null,
        groundTruthIds: input.ground_truth_ids ?? [],
        truthCellIds,
        judged: receipt.judged,
        truthRank: receipt.truth_rank,
        metadata: input.metadata ?? {},
        createdAt: new Date(receipt.created_at),
      });
      if (learner !== undefined && truth !== undefined) await teach(learner, judgementOf(ctx, principal, request, receipt, truthCellIds, sameModel), onLearnerError);
      return receipt;
    },
  };
}

/** The tenant's logged request when the caller may read every project it searched; NOT_FOUND alike for unknown, purged, another tenant's or out of scope. */
async function judgeableRequest(ctx: FacadeContext, principal: Principal, requestId: string): Promise<RecallLogRow> {
  const request = await findRecallRequest(ctx.db, principal.tenantId, requestId);
  if (request === null || !request.projects.every((project) => canAccessProject(principal, project))) throw new NotFoundError('request', requestId);
  return request;
}

function judgementOf(ctx: FacadeContext, principal: Principal, request: RecallLogRow, receipt: FeedbackReceipt, truthCellIds: readonly string[], sameModel: boolean): Judgement {
  return {
    tenantId: principal.tenantId,
    project: request.project,
    feedbackId: receipt.feedback_id,
    requestId: request.requestId,
    queryText: request.queryText,
    queryEmbedding: sameModel ? request.queryEmbedding : null,
    embeddingModel: request.embeddingModel,
    truthCellIds,
    agentId: principal.agent,
    label: receipt.label,
    senderTrust: principal.trust,
  };
}

/** The feedback has committed: a learner that fails is reported, never undoes it. */
async function teach(learner: FeedbackLearner, judgement: Judgement, onError: (error: unknown) => void): Promise<void> {
  try {
    await learner.learn(judgement);
  } catch (error) {
    onError(error);
  }
}
