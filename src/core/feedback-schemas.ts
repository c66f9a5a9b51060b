/**
 * Feedback on a recall or query answer (docs/feedback.md): what a caller sends about a request_id,
 * and what the server answers. One schema validates a call on every surface and generates the
 * OpenAPI document, like src/core/schemas.ts.
 */
import { z } from 'zod';
import { uuidSchema } from './schemas.js';
import { STORABLE_TEXT_MESSAGE, isStorableText } from './text-rules.js';

export const FEEDBACK_RATINGS = ['positive', 'negative', 'neutral'] as const;
export type FeedbackRating = (typeof FEEDBACK_RATINGS)[number];
/** Who sent a feedback, by its credential: an agent's key or token, or a person signed in to the console. */
export const FEEDBACK_LABELS = ['agent', 'human'] as const;
export type FeedbackLabel = (typeof FEEDBACK_LABELS)[number];

/** Characters of `feedback` and of `ground_truth_answer`, each, at most. */
export const MAX_FEEDBACK_CHARS = 8_000;
export const MAX_GROUND_TRUTH_IDS = 100;
export const MAX_FEEDBACK_LABELS = 20;
const MAX_LABEL_VALUE_CHARS = 256;

/** `details.reason` of the INVALID_ARGUMENT refusing a feedback with neither text nor ground truth. */
export const FEEDBACK_EMPTY_REASON = 'feedback_empty';

const feedbackText = z.string().min(1).max(MAX_FEEDBACK_CHARS).refine(isStorableText, STORABLE_TEXT_MESSAGE);

/** A cell id, or the id of a source of the judged request's project (a source id's characters; a UUID is both). */
const groundTruthIdSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'a cell id or a source id');

const labelKeySchema = z
  .string()
  .min(1)
  .max(64)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'letters, digits, ".", "_", ":", "-"; starting with a letter or digit');

export const feedbackInputSchema = z.strictObject({
  request_id: uuidSchema.describe('The request_id a recall or query answered with'),
  rating: z.enum(FEEDBACK_RATINGS).optional().describe('How useful the answer was'),
  feedback: feedbackText.optional().describe(`What was wrong, missing or good, in plain words (at most ${MAX_FEEDBACK_CHARS} characters)`),
  ground_truth_answer: feedbackText.optional().describe('The answer a correct memory would have given'),
  ground_truth_ids: z
    .array(groundTruthIdSchema)
    .min(1)
    .max(MAX_GROUND_TRUTH_IDS)
    .optional()
    .describe(`The cells, or sources of the request's project, that actually held the answer (at most ${MAX_GROUND_TRUTH_IDS}): a machine-checkable judgement`),
  metadata: z
    .record(labelKeySchema, z.string().max(MAX_LABEL_VALUE_CHARS))
    .refine((labels) => Object.keys(labels).length <= MAX_FEEDBACK_LABELS, `at most ${MAX_FEEDBACK_LABELS} labels`)
    .optional()
    .describe(`Your own string labels, e.g. an evaluation run's name (at most ${MAX_FEEDBACK_LABELS})`),
});
export type FeedbackInput = z.input<typeof feedbackInputSchema>;

export const feedbackReceiptSchema = z
  .strictObject({
    feedback_id: uuidSchema,
    request_id: uuidSchema,
    label: z.enum(FEEDBACK_LABELS).describe('agent or human, by the credential that sent it'),
    judged: z.boolean().describe('true when it named ground_truth_ids: it counts in recall@k'),
    truth_rank: z.int().min(1).nullable().describe('Where the first true item ranked in the judged answer (1 = first); null when it was not surfaced, or nothing was judged'),
    created_at: z.iso.datetime({ offset: true }),
  })
  .describe('The recorded feedback; the answer it judges and every cell are unchanged');
export type FeedbackReceipt = z.output<typeof feedbackReceiptSchema>;
