/**
 * Request schemas shared by every surface. Each one validates a call AND generates the JSON
 * Schema an MCP `inputSchema` or the OpenAPI document shows (z.toJSONSchema), so the two can
 * never drift. All objects are strict: an unknown field (`source_agent`, `tenant_id`, a typo)
 * is refused, never silently dropped.
 */
import { z } from 'zod';
import { CELL_TYPES, LAYERS, SEARCH_MODES } from './cell-types.js';
import { MAX_TTL_SECONDS, MIN_TTL_SECONDS } from './expiry.js';
import { isClientIdempotencyKey, RESERVED_KEY_MESSAGE } from './idempotency-keys.js';
import { GRAPH_CONTEXT_PER_HIT, relationsInputSchema } from './relation-schemas.js';
import { DEFAULT_TRUST } from './principal.js';
import { AGENT_NAME_MESSAGE, STORABLE_TEXT_MESSAGE, isAgentName, isStorableText, isStorableTimestamp, jsonValueProblem } from './text-rules.js';

/** A string PostgreSQL stores as written: no NUL, no unpaired surrogate (core/text-rules.ts). */
const storableText = (min: number, max?: number): z.ZodString => {
  const sized = max === undefined ? z.string().min(min) : z.string().min(min).max(max);
  return sized.refine(isStorableText, STORABLE_TEXT_MESSAGE);
};

/** RFC 3339 with an offset, naming a real instant in years 1–9999 and an offset within ±15:59. */
export const timestampInputSchema = z.iso
  .datetime({ offset: true })
  .refine(isStorableTimestamp, 'must be a real date and time in years 0001–9999 with an offset within ±15:59');

/** When a stored item is forgotten (docs/expiry.md): an instant or a lifetime, at most one; without either its type's default retention applies. */
export function expiryFields(what: string): { expires_at: z.ZodOptional<z.ZodType<string>>; ttl_seconds: z.ZodOptional<z.ZodInt> } {
  return {
    expires_at: timestampInputSchema
      .optional()
      .describe(`When this ${what} is forgotten: a future RFC 3339 instant at most 100 years ahead; from then no read returns it, and maintenance deletes it. Not with ttl_seconds`),
    ttl_seconds: z
      .int()
      .min(MIN_TTL_SECONDS)
      .max(MAX_TTL_SECONDS)
      .optional()
      .describe(`Seconds this ${what} is kept (1 to 3155760000, 100 years); then no read returns it. Not with expires_at`),
  };
}

export const cellTypeSchema = z.enum(CELL_TYPES).describe('Kind of memory cell');
export const layerSchema = z.enum(LAYERS).describe('L0 raw cells, L1 scene consolidations, L2 promoted durable knowledge');
export const uuidSchema = z.uuid();
export const projectSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._\-/]*$/, 'letters, digits, ".", "_", "-", "/"; starting with a letter or digit');

const sourceRefSchema = z
  .strictObject({
    kind: storableText(1, 64).describe('e.g. "file", "url", "commit", "issue"'),
    locator: storableText(1, 2048).describe('e.g. "specs/x.md:42" or a URL'),
  })
  .describe('Provenance back-reference');

const metadataSchema = z
  .record(z.string(), z.unknown())
  .superRefine((value, context) => {
    const problem = jsonValueProblem(value);
    if (problem !== null) context.addIssue({ code: 'custom', message: `metadata holds ${problem}` });
  })
  .describe('Free-form JSON object, at most 16 KiB serialised and 32 levels deep');

const cellTypesFilter = z.array(cellTypeSchema).min(1).max(CELL_TYPES.length);
const kSchema = z.int().min(1).max(100).default(10).describe('How many nearest cells to return (1–100)');
const limitSchema = (max: number, dflt: number): z.ZodDefault<z.ZodInt> => z.int().min(1).max(max).default(dflt);
const cursorSchema = storableText(1, 512).describe('Opaque cursor from a previous page');

export const storeInputSchema = z.strictObject({
  content: storableText(1).describe('The memory itself; at most 32 KiB of UTF-8'),
  cell_type: cellTypeSchema,
  salience: z.number().min(0).max(1).default(0.5).describe('Importance in [0,1]; higher reaches further in gossip'),
  scene_id: uuidSchema.optional().describe('Scene to join; defaults to the scene of your open session'),
  source_ref: sourceRefSchema.optional(),
  metadata: metadataSchema.optional(),
  idempotency_key: storableText(1, 200)
    .refine(isClientIdempotencyKey, RESERVED_KEY_MESSAGE)
    .optional()
    .describe('Replaying the same key returns the original node_id and stores nothing; "imported:…" is reserved for imports'),
  supersedes: uuidSchema
    .optional()
    .describe('node_id of a current cell of your current project that this one replaces (e.g. a reversed Decision): the old one stops being recalled, is kept in its history, and agents told about it hear of the change'),
  relations: relationsInputSchema.optional(),
  ...expiryFields('memory'),
});

/** An agent's name: one rule wherever a name enters (core/text-rules.ts isAgentName). */
export const agentNameSchema = z.string().min(1).max(128).refine(isAgentName, AGENT_NAME_MESSAGE);

/** A metadata equality filter: each key's value is a JSON scalar. */
export const metadataFilterSchema = z
  .record(storableText(1, 128), z.union([storableText(0, 1024), z.number(), z.boolean(), z.null()]))
  .refine((filter) => Object.keys(filter).length <= 16, 'at most 16 keys')
  .describe('Only cells whose metadata has each of these keys with exactly this value (a string, number, boolean or null)');

/** How recall and query rank and filter (docs/memory-model.md, "Recall and query"); every filter is applied inside the search. */
const searchFields = {
  query: storableText(1, 32 * 1024).describe('What to look for, in natural language'),
  k: kSchema,
  cell_types: cellTypesFilter.optional(),
  scene_id: uuidSchema.optional(),
  mode: z
    .enum(SEARCH_MODES)
    .optional()
    .describe('vector: by meaning; lexical: by the words and identifiers (error codes, ticket ids, paths, versions, code names) of the query; hybrid (default): meaning, raised by matching identifiers and words'),
  metadata: metadataFilterSchema.optional(),
  source_agents: z.array(agentNameSchema).min(1).max(50).optional().describe('Only cells stored by one of these agents'),
  created_after: timestampInputSchema.optional().describe('Only cells created after this RFC 3339 instant'),
  created_before: timestampInputSchema.optional().describe('Only cells created before this RFC 3339 instant'),
  min_trust: z.number().min(0).max(1).optional().describe('Only cells whose trust is at least this'),
  recency_bias: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe('0 (default): rank by relevance alone; up to 1: newer cells move up among the relevant candidates (1: newest first). Never excludes a cell'),
  kind: z
    .enum(['memory', 'knowledge', 'all'])
    .optional()
    .describe('knowledge: only chunks of knowledge sources (documents); memory: cells and chunks of memory sources (conversations); all (default): both'),
  num_related_chunks: z
    .int()
    .min(0)
    .max(5)
    .optional()
    .describe('0–5 (default 0): with each hit that is a chunk of a source, the ids of up to this many chunks of the same source on each side of it'),
  graph_context: z
    .boolean()
    .optional()
    .describe(`true: each hit carries its one-hop relations {from, to, type} — declared relations and the edges the server knows (supersedes, in_scene…) — at most ${GRAPH_CONTEXT_PER_HIT} a hit`),
};

export const recallInputSchema = z.strictObject(searchFields);

export const queryInputSchema = z.strictObject({ ...searchFields, layer: layerSchema });

export const openSessionInputSchema = z.strictObject({
  project: projectSchema.describe('Project to work in; becomes your current project'),
  title: storableText(1, 200).optional().describe('Title of the scene the session creates'),
});

export const closeSessionInputSchema = z.strictObject({
  session_id: uuidSchema,
});

export const placeBeaconInputSchema = z.strictObject({
  text: storableText(1, 4096).describe('The standing interest, in natural language'),
  threshold: z.number().min(0).max(1).optional().describe('Cosine similarity a cell must reach (before salience reach); server default when omitted'),
  cell_types: cellTypesFilter.optional(),
  scene_id: uuidSchema.optional(),
  project: projectSchema.optional().describe('Watch only this project; default: every project you can read'),
  ttl_seconds: z.int().min(1).max(365 * 86_400).optional().describe('Beacon expires after this many seconds'),
  include_own: z.boolean().default(false).describe('Also deliver cells you stored yourself'),
});

export const listBeaconsInputSchema = z.strictObject({
  limit: limitSchema(200, 50),
  cursor: cursorSchema.optional(),
});

export const pullDiffsInputSchema = z.strictObject({
  since: timestampInputSchema.describe('RFC 3339 timestamp; diffs created after it'),
  limit: limitSchema(500, 100),
});

export const drainInboxInputSchema = z.strictObject({
  page_size: limitSchema(500, 100),
});

/** Reading the inbox without draining it: the undelivered diffs after the drain cursor (and after after_seq). */
export const peekInboxInputSchema = z.strictObject({
  limit: limitSchema(500, 50),
  after_seq: z.int().min(0).optional().describe('Only diffs after this inbox seq (and always after the drain cursor)'),
});

/**
 * One MCP resource subscription: `resource` is `inbox` or `cell:<node_id>`; `session` is the MCP
 * session id the subscription belongs to ('' for a client that has none).
 */
export const resourceSubscriptionInputSchema = z.strictObject({
  session: z.string().max(128).regex(/^[\x21-\x7e]*$/, 'visible ASCII characters only'),
  resource: z.union([z.literal('inbox'), z.string().regex(/^cell:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)]),
});

export const getSceneInputSchema = z.strictObject({
  scene_id: uuidSchema,
});

export const listScenesInputSchema = z.strictObject({
  project: projectSchema.optional(),
  limit: limitSchema(200, 50),
  cursor: cursorSchema.optional(),
});

/**
 * Which versions a REST read sees (docs/memory-model.md, supersession): by default only current
 * cells; `include_superseded` adds replaced versions; `as_of` reads the versions valid at an
 * instant. The two are alternatives. The MCP recall and query tools take as_of alone.
 */
export const validityFields = {
  include_superseded: z.boolean().optional().describe('Also return cells that a newer version superseded (default false)'),
  as_of: timestampInputSchema.optional().describe('RFC 3339; read the versions that were current at this instant'),
};
export const validityInputSchema = z.strictObject(validityFields);

/** REST recall and query may name the project to search; the MCP tools search the current project. */
export const searchProjectInputSchema = z.strictObject({
  project: projectSchema.describe('Search this project (within your key scope) instead of your current one'),
});
export const searchProjectFields = { project: searchProjectInputSchema.shape.project.optional() };


export const listCellsInputSchema = z.strictObject({
  ...validityFields,
  project: projectSchema.optional(),
  scene_id: uuidSchema.optional(),
  cell_type: cellTypeSchema.optional(),
  layer: layerSchema.optional(),
  author: agentNameSchema.optional().describe('Only cells this agent stored'),
  limit: limitSchema(200, 50),
  cursor: cursorSchema.optional(),
});

/** Bulk forgetting (REST `DELETE /v1/cells?…`): every cell of a scene, or every cell from one source. */
export const forgetCellsInputSchema = z.strictObject({
  scene_id: uuidSchema.optional().describe('Forget every cell of this scene'),
  source_ref: storableText(1, 2048).optional().describe('Forget every cell whose source_ref.locator is this'),
  source_ref_kind: storableText(1, 64).optional().describe('With source_ref: only cells whose source_ref.kind is this'),
  limit: limitSchema(1000, 500).describe('At most this many per call (oldest first); has_more says to call again'),
});

/** The admin purge of one project of the caller's tenant (REST `DELETE /v1/admin/projects?project=…`). */
export const purgeProjectInputSchema = z.strictObject({
  project: projectSchema.describe('The project to erase: its cells, scenes, sessions, project beacons and their diffs'),
});

export const createKeyInputSchema = z.strictObject({
  tenant: z.string().min(1).max(128).regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/),
  agent: agentNameSchema,
  roles: z.array(z.enum(['admin', 'writer', 'reader'])).min(1).default(['writer']),
  projects: z.array(z.union([projectSchema, z.literal('*')])).min(1).default(['*']),
  default_project: projectSchema.optional(),
  trust: z.number().min(0).max(1).default(DEFAULT_TRUST),
});

/** The admin export of the caller's tenant (REST `GET /v1/admin/export`). */
export const exportTenantInputSchema = z.strictObject({
  project: projectSchema.optional().describe('Export only this project (no keys, inbox positions or waiting diffs: they belong to the tenant as a whole)'),
  with_vectors: z.boolean().default(false).describe("Include each cell's and beacon's vector (an importer with the same embedder uses them instead of embedding again)"),
});

/** The admin import into the caller's tenant (REST `POST /v1/admin/import`). */
export const importTenantInputSchema = z.strictObject({
  format: z.enum(['hyphae', 'server-memory', 'mem0']).default('hyphae').describe('hyphae: an export of Hyphae; server-memory: the reference MCP memory server\'s JSONL file; mem0: mem0\'s memories as JSON'),
  agent: createKeyInputSchema.shape.agent.optional().describe('server-memory and mem0: the agent whose cells the memories become (default: yours)'),
  project: projectSchema.optional().describe('server-memory and mem0: the project they go to (default: your default project)'),
});

export type StoreInput = z.output<typeof storeInputSchema>;
export type RecallInput = z.output<typeof recallInputSchema>;
export type ValidityInput = z.output<typeof validityInputSchema>;
export type QueryInput = z.output<typeof queryInputSchema>;
export type OpenSessionInput = z.output<typeof openSessionInputSchema>;
export type CloseSessionInput = z.output<typeof closeSessionInputSchema>;
export type PlaceBeaconInput = z.output<typeof placeBeaconInputSchema>;
export type ListBeaconsInput = z.output<typeof listBeaconsInputSchema>;
export type PullDiffsInput = z.output<typeof pullDiffsInputSchema>;
export type DrainInboxInput = z.output<typeof drainInboxInputSchema>;
export type PeekInboxInput = z.output<typeof peekInboxInputSchema>;
export type ResourceSubscriptionInput = z.output<typeof resourceSubscriptionInputSchema>;
export type ListScenesInput = z.output<typeof listScenesInputSchema>;
export type ListCellsInput = z.output<typeof listCellsInputSchema>;
export type ForgetCellsInput = z.output<typeof forgetCellsInputSchema>;
export type PurgeProjectInput = z.output<typeof purgeProjectInputSchema>;
export type CreateKeyInput = z.output<typeof createKeyInputSchema>;
export type ExportTenantInput = z.output<typeof exportTenantInputSchema>;
export type ImportTenantInput = z.output<typeof importTenantInputSchema>;
