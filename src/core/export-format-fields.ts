/** The field schemas the export format's lines share (export-format.ts): names, texts, times and vectors as every line checks them. */
import { z } from 'zod';
import { MAX_CONTENT_BYTES, utf8Bytes } from './limits.js';
import { agentNameSchema, createKeyInputSchema, timestampInputSchema } from './schemas.js';
import { STORABLE_TEXT_MESSAGE, isStorableText, jsonValueProblem } from './text-rules.js';

export const text = (min: number, max?: number): z.ZodString =>
  (max === undefined ? z.string().min(min) : z.string().min(min).max(max)).refine(isStorableText, STORABLE_TEXT_MESSAGE);
export const timestamp = timestampInputSchema;
/** When the item is forgotten (docs/expiry.md); null: kept. New in version 4; absent in an older file (read as null). */
export const expiresAtSchema = timestamp.nullable().default(null);
// Names by the rules every principal's names follow: a file cannot bring a name no key or token could.
export const tenantSchema = createKeyInputSchema.shape.tenant;
export const agentSchema = agentNameSchema;
export const seqSchema = z.int().min(0);
export const jsonObject = z.record(z.string(), z.unknown()).superRefine((value, context) => {
  const problem = jsonValueProblem(value);
  if (problem !== null) context.addIssue({ code: 'custom', message: `holds ${problem}` });
});
export const contentSchema = text(1).refine((value) => utf8Bytes(value) <= MAX_CONTENT_BYTES, `at most ${MAX_CONTENT_BYTES} bytes of UTF-8`);
/** A vector as a JSON array of finite numbers; its length is checked against the header's dimension. */
export const embeddingSchema = z.custom<number[]>(
  (value) => Array.isArray(value) && value.length > 0 && value.every((n) => typeof n === 'number' && Number.isFinite(n)),
  'must be a non-empty array of finite numbers',
);
