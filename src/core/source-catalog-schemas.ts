/**
 * Sources by page number and a source's surroundings (the HydraDB toolset, docs/coming-from-hydradb.md):
 * one family at a time, counted, so a caller can say how much it showed and how to reach the rest.
 */
import { z } from 'zod';
import { projectSchema } from './schemas.js';
import { SOURCE_KINDS, sourceIdSchema, sourceSummarySchema } from './source-schemas.js';

/** The furthest page a numbered listing reads (its offset is page × page_size). */
export const MAX_SOURCE_PAGE = 10_000;

export const numberedSourcesInputSchema = z.strictObject({
  kind: z.enum(SOURCE_KINDS).describe('memory or knowledge: one family at a time'),
  project: projectSchema.optional().describe('The project (within your key’s scope); default: your current project'),
  ids: z.array(sourceIdSchema).min(1).max(100).optional().describe('Only these source ids'),
  page: z.int().min(1).max(MAX_SOURCE_PAGE).default(1).describe(`Page to return, from 1 (at most ${MAX_SOURCE_PAGE})`),
  page_size: z.int().min(1).max(100).default(20).describe('Sources per page (1–100, default 20)'),
});
export type NumberedSourcesInput = z.input<typeof numberedSourcesInputSchema>;

export const numberedSourcesSchema = z.strictObject({
  sources: z.array(sourceSummarySchema),
  total: z.int().min(0).describe('Sources of the family (and of ids, when given) in the project'),
  page: z.int().min(1),
  page_size: z.int().min(1),
});
export type NumberedSources = z.output<typeof numberedSourcesSchema>;
