/** The facade's sources by page number, counted, and the subgraph around a source (from its first chunk; docs/coming-from-hydradb.md). */
import { NotFoundError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { Subgraph } from '../../core/relation-schemas.js';
import { numberedSourcesInputSchema, type NumberedSources } from '../../core/source-catalog-schemas.js';
import { sourceRefInputSchema } from '../../core/source-schemas.js';
import { firstChunkOf, numberedSources } from '../../store/source-catalog-repository.js';
import { requireProject } from '../facade/authorization.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { parseInput } from '../facade/input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';
import { subgraphOperations } from '../relations/subgraph.js';
import { summaryOf } from './source-views.js';

export type SourceCatalogOperations = Pick<MemoryFacade, 'numberedSources' | 'sourceSubgraph'>;

export function sourceCatalogOperations(ctx: FacadeContext): SourceCatalogOperations {
  const projectOf = async (principal: Principal, project: string | undefined): Promise<string> => {
    const chosen = project ?? (await ctx.scopes.resolve(ctx.db, principal)).project;
    requireProject(principal, chosen);
    return chosen;
  };
  const { cellSubgraph } = subgraphOperations(ctx);
  return {
    async numberedSources(principal, raw): Promise<NumberedSources> {
      const input = parseInput(numberedSourcesInputSchema, raw);
      const project = await projectOf(principal, input.project);
      const offset = (input.page - 1) * input.page_size;
      const found = await numberedSources(ctx.db, principal.tenantId, project, input.kind, input.ids ?? null, offset, input.page_size);
      return { sources: found.rows.map(summaryOf), total: found.total, page: input.page, page_size: input.page_size };
    },

    async sourceSubgraph(principal, ref, input): Promise<Subgraph> {
      const { source_id: sourceId, project } = parseInput(sourceRefInputSchema, ref);
      const key = { tenantId: principal.tenantId, project: await projectOf(principal, project), sourceId };
      const start = await firstChunkOf(ctx.db, key);
      if (start === null) throw new NotFoundError('source', sourceId);
      return cellSubgraph(principal, start, input);
    },
  };
}
