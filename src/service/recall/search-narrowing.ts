/**
 * The narrowing a search option adds (HydrateOption: several projects, sources by id or by title,
 * words the text must hold), validated like an input: each project checked against the key's
 * scope, titles resolved to the ids of sources the caller can read.
 */
import { z } from 'zod';
import type { Principal } from '../../core/principal.js';
import { projectSchema } from '../../core/schemas.js';
import { sourceIdSchema } from '../../core/source-schemas.js';
import { STORABLE_TEXT_MESSAGE, isStorableText } from '../../core/text-rules.js';
import type { KnnFilter, KnnProject } from '../../store/cell-search.js';
import { sourceIdsTitled } from '../../store/source-catalog-repository.js';
import { readableProjects, requireProject } from '../facade/authorization.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { parseInput } from '../facade/input-validation.js';
import type { HydrateOption } from '../memory-facade.js';

const text = (max: number): z.ZodString => z.string().min(1).max(max).refine(isStorableText, STORABLE_TEXT_MESSAGE);

const narrowingSchema = z.strictObject({
  projects: z.array(projectSchema).min(1).max(20).optional(),
  sourceIds: z.array(sourceIdSchema).min(1).max(100).optional(),
  titles: z.array(text(500)).min(1).max(100).optional(),
  containsAll: z.array(text(1024)).min(1).max(32).optional(),
});

/** Several named projects, each in the key's scope; undefined when the option names none. */
export function searchedProjects(principal: Principal, options: HydrateOption | undefined): KnnProject | undefined {
  if (options?.projects === undefined) return undefined;
  const { projects } = parseInput(narrowingSchema, { projects: options.projects });
  for (const project of projects ?? []) requireProject(principal, project);
  return { kind: 'projects', projects: [...new Set(projects)] };
}

/** The source and text conditions of the options; titles that match no readable source leave no source to find. */
export async function searchNarrowing(ctx: FacadeContext, principal: Principal, options: HydrateOption | undefined): Promise<Pick<KnnFilter, 'sourceIds' | 'containsAll'>> {
  if (options === undefined) return {};
  const { sourceIds, titles, containsAll } = parseInput(narrowingSchema, {
    ...(options.sourceIds === undefined ? {} : { sourceIds: options.sourceIds }),
    ...(options.titles === undefined ? {} : { titles: options.titles }),
    ...(options.containsAll === undefined ? {} : { containsAll: options.containsAll }),
  });
  let ids = sourceIds;
  if (titles !== undefined) {
    const titled = await sourceIdsTitled(ctx.db, principal.tenantId, readableProjects(principal), titles);
    ids = ids === undefined ? titled : ids.filter((id) => titled.includes(id));
  }
  return { ...(ids === undefined ? {} : { sourceIds: ids }), ...(containsAll === undefined ? {} : { containsAll }) };
}

/** The options a recall log keeps beside the input's arguments (what the search was narrowed to). */
export function narrowedBy(options: HydrateOption | undefined): Record<string, unknown> {
  if (options === undefined) return {};
  const { project, projects, sourceIds, titles, containsAll } = options;
  return Object.fromEntries(Object.entries({ project, projects, source_ids: sourceIds, titles, contains_all: containsAll }).filter(([, value]) => value !== undefined));
}
