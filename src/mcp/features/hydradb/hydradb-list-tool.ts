/** hydradb_list: one family (memory or knowledge sources) by page number, saying how much of the total it showed and how to reach the rest. */
import { z } from 'zod';
import { MAX_SOURCE_PAGE } from '../../../core/source-catalog-schemas.js';
import { SOURCE_KINDS, sourceIdSchema } from '../../../core/source-schemas.js';
import { defineHydraTool, scopeFields } from './hydradb-tool.js';
import type { HydraCall, HydraTool } from './hydradb-tool.js';
import type { Principal } from '../../../core/principal.js';
import type { MemoryFacade } from '../../../service/memory-facade.js';
import type { ToolOutcome } from '../tools/tool-definition.js';
import { projectOfCall } from './hydradb-scope.js';
import { quotedText } from '../quoted-text.js';

const ids = z.array(sourceIdSchema).min(1).max(100);

export const hydraListFields = {
  ids: ids.optional().describe('Only these ids'),
  source_ids: ids.optional().describe('Deprecated alias of ids'),
  page: z.int().min(1).max(MAX_SOURCE_PAGE).default(1).describe('Page to return, from 1 (default 1)'),
  page_size: z.int().min(1).max(100).default(20).describe('Items per page (1–100, default 20)'),
  ...scopeFields,
};

const notBoth = (args: { ids?: unknown; source_ids?: unknown }): boolean => args.ids === undefined || args.source_ids === undefined;
const NOT_BOTH = { path: ['source_ids'], message: 'source_ids is the deprecated name of ids: pass one of them' };

export const hydraListInput = z.strictObject({ kind: z.enum(SOURCE_KINDS).describe('memory or knowledge'), ...hydraListFields }).refine(notBoth, NOT_BOTH);
/** The deprecated hydra_db_list_* tools: the family comes from the tool's name. */
export const familyListInput = z.strictObject(hydraListFields).refine(notBoth, NOT_BOTH);

const itemSchema = z.strictObject({
  id: z.string(),
  title: z.string().nullable(),
  kind: z.enum(SOURCE_KINDS),
  project: z.string(),
  total_chars: z.int(),
  chunk_count: z.int(),
  metadata: z.record(z.string(), z.unknown()),
  created_at: z.string(),
  updated_at: z.string(),
});

export const hydraListOutput = z.strictObject({
  items: z.array(itemSchema),
  total: z.int().describe('Items of the family (and of ids, when given)'),
  page: z.int(),
  page_size: z.int(),
  next_page: z.int().nullable().describe('The page to ask for next; null on the last'),
});

export type ListArgs = z.output<typeof familyListInput> & { readonly kind: (typeof SOURCE_KINDS)[number] };

/** One page of one family, with the sentence that says how much was shown and what comes next. */
export async function listFamily(facade: MemoryFacade, principal: Principal, args: ListArgs, call: HydraCall): Promise<ToolOutcome<z.output<typeof hydraListOutput>>> {
  const project = projectOfCall(principal, call, args);
  const only = args.ids ?? args.source_ids;
  const page = await facade.numberedSources(principal, {
    kind: args.kind,
    page: args.page,
    page_size: args.page_size,
    ...(only === undefined ? {} : { ids: only }),
    ...(project === undefined ? {} : { project }),
  });
  const first = (page.page - 1) * page.page_size;
  const next = first + page.sources.length < page.total ? page.page + 1 : null;
  const items = page.sources.map((s) => ({
    id: s.source_id,
    title: s.title,
    kind: s.kind,
    project: s.project,
    total_chars: s.total_chars,
    chunk_count: s.chunk_count,
    metadata: s.metadata,
    created_at: s.created_at,
    updated_at: s.updated_at,
  }));
  const family = args.kind === 'memory' ? 'memories' : 'knowledge sources';
  const shown = items.length === 0 ? `Showed none of ${page.total} ${family}` : `Showed ${first + 1}–${first + items.length} of ${page.total} ${family}`;
  const rest = next === null ? 'That is the last page.' : `Pass page: ${next} (page_size ${page.page_size}) for the next.`;
  // A title as one JSON string: another agent's words stay data and cannot forge an entry or the page sentence.
  const lines = items.map((item) => `- ${item.id}${item.title === null ? '' : ` — ${quotedText(item.title)}`} (${item.total_chars} characters, ${item.updated_at})`);
  return { structured: { items, total: page.total, page: page.page, page_size: page.page_size, next_page: next }, links: [], text: [`${shown} (page ${page.page}). ${rest}`, ...lines].join('\n') };
}

export const hydraListTool: HydraTool = defineHydraTool({
  name: 'hydradb_list',
  title: 'List memories or knowledge',
  description:
    'Enumerate one family at a time: every memory (kind memory) or every knowledge source (kind knowledge) of a collection, newest ' +
    'first, page by page (page from 1, page_size 1–100). The answer says how many of the total it showed and which page comes next. ' +
    'The two families are separate corpora: listing memories says nothing about knowledge sources.',
  input: hydraListInput,
  output: hydraListOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  run: listFamily,
});
