/** hydradb_delete: removes items by id, irreversibly — a source with its chunks, or a memory cell. */
import { z } from 'zod';
import { NotFoundError } from '../../../core/errors.js';
import { SOURCE_KINDS, sourceIdSchema } from '../../../core/source-schemas.js';
import { defineHydraTool, scopeFields } from './hydradb-tool.js';
import type { HydraTool } from './hydradb-tool.js';
import { findItem, itemKind } from './hydradb-items.js';
import { projectOfCall } from './hydradb-scope.js';

export const hydraDeleteInput = z
  .strictObject({
    ids: z.array(sourceIdSchema).min(1).max(100).optional().describe('The ids to delete (1–100)'),
    id: sourceIdSchema.optional().describe('A single id'),
    kind: z.enum(SOURCE_KINDS).default('memory').describe('memory (default) or knowledge: the family the ids belong to'),
    ...scopeFields,
  })
  .refine((args) => (args.ids === undefined) !== (args.id === undefined), { path: ['ids'], message: 'pass exactly one of ids or id' });

export const hydraDeleteOutput = z.strictObject({
  deleted: z.array(z.string()),
  not_found: z.array(z.string()).describe('Ids that name nothing of this kind you can reach'),
});

export const hydraDeleteTool: HydraTool = defineHydraTool({
  name: 'hydradb_delete',
  title: 'Delete items',
  description:
    'Remove items by id, irreversibly: a knowledge source or memory with all its chunks, or a memory cell. Pass ids (several) or id ' +
    '(one) and the family (kind memory, the default, or knowledge). Ids that name nothing of that family come back in not_found.',
  input: hydraDeleteInput,
  output: hydraDeleteOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(facade, principal, args, call) {
    const project = projectOfCall(principal, call, args);
    const deleted: string[] = [];
    const notFound: string[] = [];
    for (const id of new Set(args.ids ?? [args.id ?? ''])) {
      const item = await findItem(facade, principal, id, project);
      if (item === null || itemKind(item) !== args.kind) {
        notFound.push(id);
        continue;
      }
      if (item.kind === 'source') await facade.deleteSource(principal, { source_id: item.source.source_id, project: item.source.project });
      else await facade.deleteCell(principal, item.node.node_id);
      deleted.push(id);
    }
    if (deleted.length === 0) throw new NotFoundError(args.kind === 'memory' ? 'memory' : 'knowledge source', notFound.join(', '));
    const text = `Deleted ${deleted.length}: ${deleted.join(', ')}.${notFound.length === 0 ? '' : ` Not found: ${notFound.join(', ')}.`}`;
    return { structured: { deleted, not_found: notFound }, links: [], text };
  },
});
