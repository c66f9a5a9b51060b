/** `/v1/feedback`: a report on a recall or query answer by its request_id, and the quality judged so far (docs/feedback.md). */
import { feedbackInputSchema, feedbackReceiptSchema } from '../../core/feedback-schemas.js';
import { feedbackQualityInputSchema, feedbackQualitySchema } from '../../core/feedback-quality-schemas.js';
import { defineRoute, type RestRoute } from './rest-route.js';

export const feedbackRoutes: readonly RestRoute[] = [
  defineRoute({
    method: 'POST',
    url: '/v1/feedback',
    operationId: 'submitFeedback',
    summary:
      'Judge a recall or query answer by its request_id: a rating, text, a ground-truth answer and the ids that held the answer (at least text or ground truth); labelled agent or human by your credential; changes neither the answer nor any cell',
    tag: 'feedback',
    schemas: { body: feedbackInputSchema },
    success: { status: 201, description: 'The feedback recorded, with where the first true item ranked', schema: feedbackReceiptSchema },
    errors: ['NOT_FOUND'],
    async handle(facade, { principal, body }) {
      return { status: 201, payload: await facade.submitFeedback(principal, body) };
    },
  }),
  defineRoute({
    method: 'GET',
    url: '/v1/feedback/quality',
    operationId: 'feedbackQuality',
    summary: "Admin: recall on the tenant's judged requests — recall@1, recall@5, MRR and the share not surfaced per day and sender label — and the worst-judged requests with their query, what they returned and what was true",
    tag: 'feedback',
    schemas: { query: feedbackQualityInputSchema },
    success: { status: 200, description: 'The quality per day, oldest first, and the worst-judged requests', schema: feedbackQualitySchema },
    errors: [],
    async handle(facade, { principal, query }) {
      return { status: 200, payload: await facade.feedbackQuality(principal, query) };
    },
  }),
];
