/**
 * The text keys a subgraph names its nodes by (`cell:<uuid>`, `scene:<uuid>`, `session:<uuid>`,
 * `corroboration:<uuid>`, `source:<project>:<source_id>`; a project name holds no ':') and the SQL
 * fragments that read them, shared by the subgraph walk and recall's one-hop graph context.
 * Parameters: $1 the tenant, $2 the readable projects (NULL: all), $6 the relation types (NULL: all).
 */

/** A key's uuid when it is of this kind, else NULL (CASE keeps the cast from other kinds' keys). */
export const uuidOf = (key: string, kind: string): string => `(CASE WHEN ${key} LIKE '${kind}:%' THEN substr(${key}, ${kind.length + 2})::uuid END)`;
export const sourceProject = (key: string): string => `(CASE WHEN ${key} LIKE 'source:%' THEN split_part(${key}, ':', 2) END)`;
export const sourceId = (key: string): string => `(CASE WHEN ${key} LIKE 'source:%' THEN substr(${key}, length(split_part(${key}, ':', 2)) + 9) END)`;
export const visible = (tenant: string, project: string): string => `(${tenant} = $1 AND ($2::text[] IS NULL OR ${project} = ANY($2::text[])))`;
export const typeAllowed = (type: string): string => `($6::text[] IS NULL OR ${type} = ANY($6::text[]))`;

/** The id a key names: a source's source_id, else the uuid after the kind. */
export const idOf = (key: string): string => `(CASE WHEN ${key} LIKE 'source:%' THEN ${sourceId(key)} ELSE substr(${key}, strpos(${key}, ':') + 1) END)`;
