/**
 * hydradb_feedback: whether a hydradb_query answer was useful, by the request_id it printed
 * (docs/feedback.md): text, a rating, ground truth, or both — neither is refused. It changes
 * neither the judged answer nor any memory; the credential decides whether it counts as an agent's.
 */
import { z } from 'zod';
import { feedbackInputSchema, feedbackReceiptSchema } from '../../../core/feedback-schemas.js';
import { defineHydraTool, scopeFields } from './hydradb-tool.js';
import type { HydraTool } from './hydradb-tool.js';
import { projectOfCall } from './hydradb-scope.js';

const fields = feedbackInputSchema.shape;

export const hydraFeedbackInput = z.strictObject({
  request_id: fields.request_id.describe('The request_id hydradb_query printed for the query being rated; copy it verbatim'),
  feedback: fields.feedback,
  rating: fields.rating.describe('positive, negative or neutral'),
  ground_truth_answer: fields.ground_truth_answer,
  ground_truth_source_ids: fields.ground_truth_ids.describe('The items (source ids, or memory cell ids) that actually hold the answer (at most 100)'),
  metadata: fields.metadata,
  ...scopeFields,
});

export const hydraFeedbackTool: HydraTool = defineHydraTool({
  name: 'hydradb_feedback',
  title: 'Rate a query’s results',
  description:
    'Report whether a hydradb_query answer was useful, by the request_id it printed at the end of its output. Send feedback text, ' +
    'a rating, ground truth (ground_truth_answer, ground_truth_source_ids: the items that actually hold the answer), or several; ' +
    'a submission with neither text nor ground truth is refused. Ground truth ids turn it into a retrieval judgement (where the ' +
    'true item ranked, if at all). It never changes the answer it judges or any stored memory.',
  input: hydraFeedbackInput,
  output: feedbackReceiptSchema,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(facade, principal, args, call) {
    // Refuses another database or a collection outside the key's scope; the judged request names its own project.
    projectOfCall(principal, call, args);
    const receipt = await facade.submitFeedback(principal, {
      request_id: args.request_id,
      ...(args.feedback === undefined ? {} : { feedback: args.feedback }),
      ...(args.rating === undefined ? {} : { rating: args.rating }),
      ...(args.ground_truth_answer === undefined ? {} : { ground_truth_answer: args.ground_truth_answer }),
      ...(args.ground_truth_source_ids === undefined ? {} : { ground_truth_ids: args.ground_truth_source_ids }),
      ...(args.metadata === undefined ? {} : { metadata: args.metadata }),
    });
    const rank = receipt.judged ? (receipt.truth_rank === null ? ' The true items were not in the answer.' : ` The first true item ranked ${receipt.truth_rank}.`) : '';
    return { structured: receipt, links: [], text: `Recorded feedback ${receipt.feedback_id} on request ${receipt.request_id} (as ${receipt.label}).${rank}` };
  },
});
