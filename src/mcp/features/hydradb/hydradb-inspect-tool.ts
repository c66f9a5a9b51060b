/**
 * hydradb_inspect: one item's text by id, a slice at a time (offset, limit ≤ 20,000 code points);
 * `url` answers a signed link to the REST slice that opens that slice of that source only, until it expires.
 */
import { z } from 'zod';
import { InvalidArgumentError, NotFoundError, UnavailableError } from '../../../core/errors.js';
import { MAX_SLICE_CHARS, MAX_SOURCE_OFFSET, SOURCE_KINDS, sourceIdSchema } from '../../../core/source-schemas.js';
import { defineHydraTool, scopeFields } from './hydradb-tool.js';
import type { HydraTool } from './hydradb-tool.js';
import { findItem, itemKind } from './hydradb-items.js';
import { projectOfCall } from './hydradb-scope.js';

/** The longest a download link may stay valid, and the default. */
export const MAX_LINK_SECONDS = 86_400;
export const DEFAULT_LINK_SECONDS = 900;

export const hydraInspectInput = z
  .strictObject({
    id: sourceIdSchema.optional().describe('The id, from hydradb_query or hydradb_list (required; source_id is its deprecated name)'),
    source_id: sourceIdSchema.optional().describe('Deprecated alias of id'),
    mode: z.enum(['content', 'url', 'both']).default('content').describe('content (default), url for a download link, or both'),
    offset: z.int().min(0).max(MAX_SOURCE_OFFSET).default(0).describe('Character to read from (default 0)'),
    limit: z.int().min(1).max(MAX_SLICE_CHARS).default(MAX_SLICE_CHARS).describe(`Characters to return at most (1–${MAX_SLICE_CHARS}, default ${MAX_SLICE_CHARS})`),
    expiry_seconds: z.int().min(1).max(MAX_LINK_SECONDS).default(DEFAULT_LINK_SECONDS).describe(`How long a url stays valid (1–${MAX_LINK_SECONDS} s, default ${DEFAULT_LINK_SECONDS})`),
    ...scopeFields,
  })
  .refine((args) => (args.id === undefined) !== (args.source_id === undefined), { path: ['id'], message: 'id is required (source_id is its deprecated name): pass exactly one' });

export const hydraInspectOutput = z.strictObject({
  id: z.string(),
  kind: z.enum(SOURCE_KINDS),
  project: z.string(),
  title: z.string().nullable(),
  offset: z.int(),
  total_chars: z.int(),
  next_offset: z.int().nullable().describe('Where the next slice starts; null at the end'),
  text: z.string().optional().describe('mode content or both'),
  url: z.string().optional().describe('mode url or both: the REST slice, signed for this slice only'),
  expires_at: z.string().optional(),
});

/**
 * Where a partial slice sits, for the tool's text: it comes before the stored text, so text ending
 * in a look-alike note cannot send a client elsewhere; undefined when the slice reaches the end.
 */
function sliceNote(offset: number, next: number | null, total: number): string | undefined {
  return next === null ? undefined : `Characters ${offset}–${next} of ${total}; the rest from offset ${next}.`;
}

export const hydraInspectTool: HydraTool = defineHydraTool({
  name: 'hydradb_inspect',
  title: 'Read one item',
  description:
    'Fetch one item’s full text by id (from hydradb_query or hydradb_list). Long items come back in slices: read from offset, at most ' +
    'limit characters (≤ 20,000), then from next_offset. mode url answers a link to that slice instead (valid expiry_seconds, usable ' +
    'without a key but for that slice only), both answers the two.',
  input: hydraInspectInput,
  output: hydraInspectOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(facade, principal, args, call) {
    const project = projectOfCall(principal, call, args);
    const id = args.id ?? args.source_id ?? '';
    const item = await findItem(facade, principal, id, project, { offset: args.offset, limit: args.limit });
    if (item === null) throw new NotFoundError('item', id);
    if (item.kind === 'cell') {
      if (args.mode !== 'content') throw new InvalidArgumentError('a memory stored as one cell has no download link: use mode content', [{ path: 'mode', message: 'content only for a memory cell' }]);
      const chars = Array.from(item.node.content);
      const end = Math.min(chars.length, args.offset + args.limit);
      const text = chars.slice(args.offset, end).join('');
      const next = end < chars.length ? end : null;
      const structured = { id, kind: itemKind(item), project: item.node.project, title: null, offset: args.offset, total_chars: chars.length, next_offset: next, text };
      return { structured, links: [], text: [sliceNote(args.offset, next, chars.length), text].filter((part) => part !== undefined).join('\n\n') };
    }
    const { source } = item;
    const base = { id, kind: source.kind, project: source.project, title: source.title, offset: source.offset, total_chars: source.total_chars, next_offset: source.next_offset };
    let link: { readonly url: string; readonly expires_at: string } | undefined;
    if (args.mode !== 'content') {
      if (call.links === undefined) throw new UnavailableError('download links are served over HTTP only: use mode content on this connection');
      const slice = { project: source.project, sourceId: source.source_id, offset: args.offset, limit: args.limit };
      link = call.links.link(principal, slice, args.expiry_seconds);
    }
    const structured = { ...base, ...(args.mode === 'url' ? {} : { text: source.text }), ...(link === undefined ? {} : { url: link.url, expires_at: link.expires_at }) };
    const text = [sliceNote(source.offset, source.next_offset, source.total_chars), link === undefined ? undefined : `Download (until ${link.expires_at}): ${link.url}`, args.mode === 'url' ? undefined : source.text]
      .filter((part) => part !== undefined)
      .join('\n\n');
    return { structured, links: [], text };
  },
});
