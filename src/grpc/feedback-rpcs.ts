/**
 * SubmitFeedback of hyphae.v1.MemoryService (docs/feedback.md): the request becomes the body
 * POST /v1/feedback would have parsed, validated with the same schema, so gRPC answers what REST
 * answers, with the same error codes.
 */
import type { ServiceImpl } from '@connectrpc/connect';
import { feedbackInputSchema } from '../core/feedback-schemas.js';
import { parseInput } from '../service/index.js';
import { principalOf } from './call-context.js';
import { SubmitFeedbackRequestSchema, SubmitFeedbackResponseSchema, type MemoryService } from './gen/hyphae/v1/memory_pb.js';
import { fieldsOf, messageOf } from './message-mapping.js';
import type { MemoryServiceFacade } from './memory-service.js';

export type FeedbackRpcs = Pick<ServiceImpl<typeof MemoryService>, 'submitFeedback'>;

export function feedbackRpcs(facade: MemoryServiceFacade): FeedbackRpcs {
  return {
    async submitFeedback(request, context) {
      const input = parseInput(feedbackInputSchema, fieldsOf(SubmitFeedbackRequestSchema, request));
      return messageOf(SubmitFeedbackResponseSchema, await facade.submitFeedback(principalOf(context), input));
    },
  };
}
