/** Retrieval quality on real traffic as the console and `GET /v1/feedback/quality` read it (docs/feedback.md). */
import { z } from 'zod';
import { FEEDBACK_LABELS } from './feedback-schemas.js';
import { uuidSchema } from './schemas.js';

export const feedbackQualityInputSchema = z.strictObject({
  days: z.int().min(1).max(30).default(7).describe('How many days back, today included (UTC)'),
  worst: z.int().min(1).max(50).default(10).describe('How many worst-judged requests to list'),
});
export type FeedbackQualityInput = z.input<typeof feedbackQualityInputSchema>;

const ratio = z.number().min(0).max(1);

export const feedbackQualitySchema = z
  .strictObject({
    days: z
      .array(
        z.strictObject({
          day: z.string().describe('UTC day, YYYY-MM-DD'),
          label: z.enum(FEEDBACK_LABELS),
          judged: z.int().min(1),
          recall_at_1: ratio,
          recall_at_5: ratio,
          mrr: ratio,
          not_surfaced: ratio,
        }),
      )
      .describe('Per day and sender label, oldest first: judged requests and their recall@1, recall@5, MRR and share not surfaced'),
    worst: z
      .array(
        z.strictObject({
          request_id: uuidSchema,
          query: z.string().nullable().describe('The query; null when the recall log keeps hashes only'),
          label: z.enum(FEEDBACK_LABELS),
          agent: z.string().describe('Who judged it'),
          returned: z.array(uuidSchema).describe('What the request ranked, best first'),
          truth: z.array(z.string()).describe('The ground-truth ids the judge named'),
          truth_rank: z.int().min(1).nullable(),
          created_at: z.iso.datetime({ offset: true }),
        }),
      )
      .describe('The worst-judged requests: truth not surfaced first, then ranked lowest'),
  })
  .describe("Recall on the tenant's judged requests");
export type FeedbackQuality = z.output<typeof feedbackQualitySchema>;
