/**
 * hydradb_subgraph: everything connected to one item, breadth-first (docs/relations.md): from a
 * source its first chunk is the start, from a memory cell the cell. Members and the relations among
 * them go in structuredContent, in breadth-first order.
 */
import { z } from 'zod';
import { NotFoundError } from '../../../core/errors.js';
import { SUBGRAPH_MAX_DEPTH, SUBGRAPH_MAX_MEMBERS, SUBGRAPH_MEMBER_KINDS, relationSchema } from '../../../core/relation-schemas.js';
import { SOURCE_KINDS, sourceIdSchema } from '../../../core/source-schemas.js';
import { defineHydraTool, scopeFields } from './hydradb-tool.js';
import type { HydraTool } from './hydradb-tool.js';
import { findItem, itemKind } from './hydradb-items.js';
import { projectOfCall } from './hydradb-scope.js';
import { quotedText } from '../quoted-text.js';

export const hydraSubgraphInput = z.strictObject({
  id: sourceIdSchema.describe('The item to start from, from hydradb_query or hydradb_list'),
  kind: z.enum(SOURCE_KINDS).default('knowledge').describe('knowledge (default) or memory: the family of the start item'),
  depth: z.int().min(1).max(SUBGRAPH_MAX_DEPTH).default(5).describe(`Hops to traverse (1–${SUBGRAPH_MAX_DEPTH}, default 5)`),
  max_sources: z.int().min(1).max(SUBGRAPH_MAX_MEMBERS).default(200).describe(`Most members returned (1–${SUBGRAPH_MAX_MEMBERS}, default 200)`),
  ...scopeFields,
});

const memberSchema = z.strictObject({
  id: z.string().describe('A source’s source_id, a cell’s node_id, or a scene’s, session’s or restatement’s id'),
  kind: z.enum(SUBGRAPH_MEMBER_KINDS),
  title: z.string().nullable().describe('A source’s or scene’s title, the start of a cell’s text'),
  depth: z.int(),
  discovered_relation: z.string().nullable().describe('The edge it was reached through (chunk_of, next_chunk, same_thread, in_scene, a declared type…); null for the start'),
  discovered_via: z.string().nullable().describe('The member it was reached from; null for the start'),
});

export const hydraSubgraphOutput = z.strictObject({
  start: z.string().describe('The cell the walk started from'),
  members: z.array(memberSchema),
  relations: z.array(relationSchema).describe('Every edge among the members, {from, to, type}'),
  truncated: z.boolean().describe('max_sources clipped the traversal'),
});

export const hydraSubgraphTool: HydraTool = defineHydraTool({
  name: 'hydradb_subgraph',
  title: 'What surrounds an item',
  description:
    'Everything connected to one item — its source and neighbouring chunks, its thread, scene and session, the items it declares ' +
    'relations to — traversed breadth-first up to depth hops (default 5, max 10) and max_sources members (default 200, max 1000). ' +
    'Each member says how it was reached (discovered_relation) and from which member (discovered_via); structuredContent also ' +
    'carries the relations among the members, so the graph can be rebuilt.',
  input: hydraSubgraphInput,
  output: hydraSubgraphOutput,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(facade, principal, args, call) {
    const project = projectOfCall(principal, call, args);
    const item = await findItem(facade, principal, args.id, project);
    if (item === null || itemKind(item) !== args.kind) throw new NotFoundError('item', args.id);
    const walk = { depth: args.depth, max_members: args.max_sources };
    const graph =
      item.kind === 'source'
        ? await facade.sourceSubgraph(principal, { source_id: item.source.source_id, project: item.source.project }, walk)
        : await facade.cellSubgraph(principal, item.node.node_id, walk);
    const members = graph.members.map((m) => ({ id: m.id, kind: m.kind, title: m.preview, depth: m.depth, discovered_relation: m.discovered_relation, discovered_via: m.discovered_via }));
    const structured = { start: graph.node_id, members, relations: graph.relations.map((r) => ({ ...r })), truncated: graph.truncated };
    // A member's title or text as one JSON string: another agent's words stay data and cannot forge a member.
    const lines = members.map((m) => `${'  '.repeat(m.depth)}- ${m.kind} ${m.id}${m.title === null ? '' : ` ${quotedText(m.title)}`}${m.discovered_relation === null ? '' : ` (${m.discovered_relation})`}`);
    const text = [`${members.length} members, ${structured.relations.length} relations${graph.truncated ? ' (truncated by max_sources)' : ''}:`, ...lines].join('\n');
    return { structured, links: [], text };
  },
});
