/** hydradb_delete: removes items by id, irreversibly — a source with its chunks, or a memory cell. */
import { z } from 'zod';
import { erasureReceiptSchema } from '../../../core/erasure-schemas.js';
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
  receipts: z
    .array(z.strictObject({ id: z.string(), receipt_id: z.uuid(), counts: erasureReceiptSchema.shape.counts }))
    .describe('Per deleted id, its erasure receipt: the copies removed by kind (docs/forgetting.md)'),
});

/** "sources 1, chunks 3, lexical_terms 3": a receipt's counts as a line of text. */
function countsText(counts: Readonly<Record<string, number>>): string {
  const kinds = Object.entries(counts);
  return kinds.length === 0 ? 'nothing left to remove' : kinds.map(([kind, n]) => `${kind} ${n}`).join(', ');
}

export const hydraDeleteTool: HydraTool = defineHydraTool({
  name: 'hydradb_delete',
  title: 'Delete items',
  description:
    'Remove items by id, irreversibly: a knowledge source or memory with all its chunks, or a memory cell. Pass ids (several) or id ' +
    '(one) and the family (kind memory, the default, or knowledge). Ids that name nothing of that family come back in not_found. ' +
    'Each deleted id answers its erasure receipt: how many copies of each kind went (chunks, lexical terms, inbox previews…).',
  input: hydraDeleteInput,
  output: hydraDeleteOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  async run(facade, principal, args, call) {
    const project = projectOfCall(principal, call, args);
    const deleted: string[] = [];
    const notFound: string[] = [];
    const receipts: z.output<typeof hydraDeleteOutput>['receipts'] = [];
    for (const id of new Set(args.ids ?? [args.id ?? ''])) {
      const item = await findItem(facade, principal, id, project);
      if (item === null || itemKind(item) !== args.kind) {
        notFound.push(id);
        continue;
      }
      const receipt =
        item.kind === 'source' ? await facade.deleteSource(principal, { source_id: item.source.source_id, project: item.source.project }) : await facade.deleteCell(principal, item.node.node_id);
      deleted.push(id);
      receipts.push({ id, receipt_id: receipt.receipt_id, counts: receipt.counts });
    }
    if (deleted.length === 0) throw new NotFoundError(args.kind === 'memory' ? 'memory' : 'knowledge source', notFound.join(', '));
    const lines = receipts.map((receipt) => `- ${receipt.id}: ${countsText(receipt.counts)} (receipt ${receipt.receipt_id})`);
    const text = `Deleted ${deleted.length}, copies removed per id:\n${lines.join('\n')}${notFound.length === 0 ? '' : `\nNot found: ${notFound.join(', ')}.`}`;
    return { structured: { deleted, not_found: notFound, receipts }, links: [], text };
  },
});
