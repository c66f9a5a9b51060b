/**
 * Relations between cells (docs/relations.md): the explicit ones an agent declares (`answers`,
 * `depends_on`…) and the implicit ones the server derives from what it already records
 * (supersession, scenes, sessions, sources, restatements, promotion). One rule for a type's
 * spelling, one bound per cell, and the subgraph's limits, for every surface.
 */
import { z } from 'zod';
import { IMPLICIT_RELATION_TYPES } from './relation-types.js';
import { isStorableTimestamp } from './text-rules.js';

/** Longest relation type, in characters. */
export const MAX_RELATION_TYPE_CHARS = 40;
/** Most explicit relations one cell declares (from it); a store's `relations` holds at most this many. */
export const MAX_RELATIONS_PER_CELL = 32;

/** Most one-hop relations a recall hit carries with graph_context (docs/relations.md). */
export const GRAPH_CONTEXT_PER_HIT = 10;

const IMPLICIT: ReadonlySet<string> = new Set(IMPLICIT_RELATION_TYPES);
/** snake_case: lowercase words of letters and digits joined by single underscores, starting with a letter. */
const SNAKE_CASE = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;

export const relationTypeSchema = z
  .string()
  .min(1)
  .max(MAX_RELATION_TYPE_CHARS)
  .regex(SNAKE_CASE, 'a snake_case word: lowercase letters and digits, words joined by "_", starting with a letter (e.g. answers, depends_on)')
  .describe(`What the relation says, as a snake_case word of at most ${MAX_RELATION_TYPE_CHARS} characters: answers, depends_on, contradicts, reply_to, implements…`);

/** A type an agent may declare: the implicit edges' names are the server's. */
export const declaredRelationTypeSchema = relationTypeSchema.refine(
  (type) => !IMPLICIT.has(type),
  `names an edge the server derives (${IMPLICIT_RELATION_TYPES.join(', ')}); choose another word`,
);

const instantSchema = z.iso.datetime({ offset: true }).refine(isStorableTimestamp, 'must be a real date and time in years 0001–9999 with an offset within ±15:59');

/** The relation a DELETE names: its target and type. */
const relationKeySchema = z.strictObject({
  to: z.uuid().describe('node_id of a cell you can read'),
  type: declaredRelationTypeSchema,
});

export const relationInputSchema = relationKeySchema
  .extend({
    valid_until: instantSchema.optional().describe('RFC 3339, in the future: when the relation stops holding; a subgraph or graph_context at a later instant leaves it out'),
  })
  .describe('A typed relation from this cell to another cell of your tenant');

export const relationsInputSchema = z
  .array(relationInputSchema)
  .max(MAX_RELATIONS_PER_CELL)
  .describe(`Relations from this cell to cells you can read (at most ${MAX_RELATIONS_PER_CELL} per cell), e.g. [{"to": "<node_id>", "type": "answers"}]`);

export type RelationInput = z.output<typeof relationInputSchema>;

/** A relation as it is answered: from the cell, to the other one, its type. */
export const relationSchema = z.strictObject({
  from: z.string().describe('id of the item the relation starts from'),
  to: z.string().describe('id of the item it points to'),
  type: z.string().describe('an explicit type (answers, depends_on…) or an implicit edge (supersedes, in_scene…)'),
  valid_until: z.string().optional().describe('when a declared relation stops holding; absent while it holds for good (listed relations only)'),
});
export type Relation = z.output<typeof relationSchema>;

/** `POST /v1/cells/{id}/relations`: relations to add from the cell. */
export const addRelationsInputSchema = z.strictObject({
  relations: relationsInputSchema.min(1),
});
export type AddRelationsInput = z.output<typeof addRelationsInputSchema>;

/** `DELETE /v1/cells/{id}/relations?to=…&type=…`: the one relation to remove. */
export const deleteRelationInputSchema = relationKeySchema;

/** What the cell declares after a change: its explicit relations, oldest first. */
export const cellRelationsSchema = z.strictObject({
  node_id: z.string(),
  relations: z.array(relationSchema),
});
export type CellRelations = z.output<typeof cellRelationsSchema>;

/** Subgraph bounds (docs/relations.md). */
export const SUBGRAPH_DEFAULT_DEPTH = 2;
export const SUBGRAPH_MAX_DEPTH = 10;
export const SUBGRAPH_DEFAULT_MEMBERS = 200;
export const SUBGRAPH_MAX_MEMBERS = 1000;

export const subgraphDepthSchema = z
  .int()
  .min(1, 'at least 1')
  .max(SUBGRAPH_MAX_DEPTH, `at most ${SUBGRAPH_MAX_DEPTH}`)
  .describe(`Hops to walk from the cell (1–${SUBGRAPH_MAX_DEPTH}, default ${SUBGRAPH_DEFAULT_DEPTH})`);
export const subgraphMaxMembersSchema = z
  .int()
  .min(1, 'at least 1')
  .max(SUBGRAPH_MAX_MEMBERS, `at most ${SUBGRAPH_MAX_MEMBERS}`)
  .describe(`Most members answered, the cell itself included (1–${SUBGRAPH_MAX_MEMBERS}, default ${SUBGRAPH_DEFAULT_MEMBERS})`);

export const subgraphInputSchema = z.strictObject({
  depth: subgraphDepthSchema.default(SUBGRAPH_DEFAULT_DEPTH),
  max_members: subgraphMaxMembersSchema.default(SUBGRAPH_DEFAULT_MEMBERS),
  relation_types: z.array(relationTypeSchema).min(1).max(50).optional().describe('Walk only edges of these types (explicit or implicit)'),
  as_of: instantSchema.optional().describe('RFC 3339: walk the declared relations that held at this instant (declared by then, not ended); now when absent'),
});
export type SubgraphInput = z.input<typeof subgraphInputSchema>;

export const SUBGRAPH_MEMBER_KINDS = ['cell', 'scene', 'session', 'source', 'corroboration'] as const;

export const subgraphMemberSchema = z.strictObject({
  id: z.string().describe('node_id, scene_id, session_id, corroboration_id, or a source’s source_id'),
  kind: z.enum(SUBGRAPH_MEMBER_KINDS),
  project: z.string().nullable(),
  cell_type: z.string().nullable().describe('a cell’s type; null for other kinds'),
  preview: z.string().nullable().describe('the start of a cell’s or restatement’s text, a scene’s or source’s title'),
  depth: z.int().describe('hops from the start cell (0 for it)'),
  discovered_relation: z.string().nullable().describe('the type of the edge it was reached through; null for the start cell'),
  discovered_via: z.string().nullable().describe('id of the member it was reached from; null for the start cell'),
});
export type SubgraphMember = z.output<typeof subgraphMemberSchema>;

export const subgraphSchema = z.strictObject({
  node_id: z.string(),
  members: z.array(subgraphMemberSchema).describe('breadth-first: by depth, then by the member reached from, the relation type and the id'),
  relations: z.array(relationSchema).describe('every edge among the members'),
  truncated: z.boolean().describe('max_members clipped the walk: more lay within depth'),
});
export type Subgraph = z.output<typeof subgraphSchema>;
