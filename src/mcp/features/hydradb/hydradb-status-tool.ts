/** hydradb_status: whether ingested items have finished indexing (a memory cell is searchable once stored). */
import { z } from 'zod';
import { SOURCE_STATES, sourceIdSchema } from '../../../core/source-schemas.js';
import { defineHydraTool, scopeFields } from './hydradb-tool.js';
import type { HydraTool } from './hydradb-tool.js';
import { findItem } from './hydradb-items.js';
import { projectOfCall } from './hydradb-scope.js';

export const hydraStatusInput = z.strictObject({
  ids: z.array(sourceIdSchema).min(1).max(100).describe('The ids to check (1–100)'),
  ...scopeFields,
});

const statusSchema = z.strictObject({
  id: z.string(),
  state: z.enum([...SOURCE_STATES, 'not_found']).describe('ready: searchable; queued/indexing: not yet; failed: see failure; not_found: no such item you can reach'),
  chunks_done: z.int(),
  chunks_total: z.int(),
  failure: z.string().nullable(),
});

export const hydraStatusOutput = z.strictObject({ statuses: z.array(statusSchema) });

export const hydraStatusTool: HydraTool = defineHydraTool({
  name: 'hydradb_status',
  title: 'Check indexing',
  description:
    'Check whether ingested items have finished indexing: ready (searchable), queued or indexing (chunks_done of chunks_total), ' +
    'failed (with the reason), or not_found. Ingestion of a large entry runs in the background; poll until ready.',
  input: hydraStatusInput,
  output: hydraStatusOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(facade, principal, args, call) {
    const project = projectOfCall(principal, call, args);
    const statuses: z.output<typeof statusSchema>[] = [];
    for (const id of args.ids) {
      const item = await findItem(facade, principal, id, project);
      if (item === null) statuses.push({ id, state: 'not_found', chunks_done: 0, chunks_total: 0, failure: null });
      else if (item.kind === 'cell') statuses.push({ id, state: 'ready', chunks_done: 1, chunks_total: 1, failure: null });
      else {
        const status = await facade.sourceStatus(principal, { source_id: item.source.source_id, project: item.source.project });
        statuses.push({ id, state: status.state, chunks_done: status.chunks_done, chunks_total: status.chunks_total, failure: status.failure });
      }
    }
    const text = statuses.map((s) => `${s.id}: ${s.state}${s.state === 'indexing' ? ` (${s.chunks_done}/${s.chunks_total})` : ''}${s.failure === null ? '' : ` — ${s.failure}`}`).join('\n');
    return { structured: { statuses }, links: [], text };
  },
});
