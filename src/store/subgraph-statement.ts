/**
 * The subgraph statement (docs/relations.md): ONE recursive CTE, PostgreSQL and PGlite alike. Each
 * step of the recursion expands a chunk of one BFS level (the level's nodes in order, `frontier`,
 * `cursor` the ones expanded so far) into the next level's nodes it finds first (`keys`, appended to
 * `next`, which becomes the frontier when this one is done), with everything seen so far, so a node
 * is visited once whatever the cycles. Nodes are ordered by the position of the node they were
 * reached from, so chunks taken in order append in order, and a walk clipped by max_members stops
 * expanding where it is full. A node the caller may not read (another tenant, a project outside
 * `projects`, an expired cell or source) is neither a member nor walked through.
 *
 * Parameters: $1 tenant, $2 readable projects (NULL: all), $3 start cell, $4 depth, $5 max members,
 * $6 relation types (NULL: all), $7 preview characters, $8 the instant whose relations are walked.
 */
import { liveRow } from './cell-conditions.js';
import { idOf, sourceId, sourceProject, typeAllowed, uuidOf, visible } from './graph-keys.js';

const held = (r: string): string => `${r}.created_at <= $8::timestamptz AND (${r}.valid_until IS NULL OR ${r}.valid_until > $8::timestamptz)`;
/** The source of `c`'s chunks is a conversation (its turns form a thread). */
const conversation = (c: string): string =>
  `EXISTS (SELECT 1 FROM sources s WHERE s.tenant_id = $1 AND s.project = ${c}.project AND s.source_id = ${c}.source_id AND s.format = 'conversation')`;
const readableCell = (n: string): string => `${liveRow(n)} AND ${visible(`${n}.tenant_id`, `${n}.project`)}`;
/** A level's first chunk; each later one as long as the level expanded so far (few steps on a wide level). */
const FIRST_CHUNK = 16;

/**
 * Every edge from the step's chunk of a level, read set-wise (one scan per edge kind over the chunk):
 * the node's position (pos) and key (via), the node at the other end (other) and the edge's type.
 * `ok` is true when the other end was read here and is readable (unreadable ones are dropped); NULL
 * when only its key is known — whether the caller may read it is decided later, for the few that
 * can become members.
 */
const LEVEL_EDGES = `
  f AS MATERIALIZED (SELECT u.key, u.pos FROM unnest(st.chunk) WITH ORDINALITY AS u(key, pos)),
  fc AS MATERIALIZED (
    SELECT f.key, f.pos, c.node_id, c.project, c.supersedes, c.superseded_by, c.origin_node_id, c.promoted_node_id, c.scene_id, c.session_id, c.source_id, c.chunk_index
    FROM f JOIN cells c ON c.node_id = ${uuidOf('f.key', 'cell')} WHERE c.tenant_id = $1 AND ${liveRow('c')}
  ),
  e (pos, via, other, type, ok) AS (
    SELECT fc.pos, fc.key, 'cell:' || r.to_node_id, r.relation_type, NULL::boolean FROM fc JOIN cell_relations r ON r.from_node_id = fc.node_id WHERE ${held('r')}
    UNION ALL SELECT fc.pos, fc.key, 'cell:' || r.from_node_id, r.relation_type, NULL FROM fc JOIN cell_relations r ON r.to_node_id = fc.node_id WHERE ${held('r')}
    UNION ALL SELECT pos, key, 'cell:' || supersedes, 'supersedes', NULL FROM fc WHERE supersedes IS NOT NULL
    UNION ALL SELECT pos, key, 'cell:' || superseded_by, 'supersedes', NULL FROM fc WHERE superseded_by IS NOT NULL
    UNION ALL SELECT pos, key, 'cell:' || origin_node_id, 'promoted_from', NULL FROM fc WHERE origin_node_id IS NOT NULL
    UNION ALL SELECT pos, key, 'cell:' || promoted_node_id, 'promoted_from', NULL FROM fc WHERE promoted_node_id IS NOT NULL
    UNION ALL SELECT pos, key, 'scene:' || scene_id, 'in_scene', NULL FROM fc WHERE scene_id IS NOT NULL
    UNION ALL SELECT pos, key, 'session:' || session_id, 'in_session', NULL FROM fc WHERE session_id IS NOT NULL
    UNION ALL SELECT pos, key, 'source:' || project || ':' || source_id, 'chunk_of', NULL FROM fc WHERE source_id IS NOT NULL
    -- A restatement is readable where the cell it restates is: the frontier cell, a member.
    UNION ALL SELECT fc.pos, fc.key, 'corroboration:' || k.corroboration_id, 'corroborated_by', true FROM fc JOIN corroborations k ON k.tenant_id = $1 AND k.node_id = fc.node_id
    UNION ALL SELECT fc.pos, fc.key, 'cell:' || n.node_id, 'next_chunk', true FROM fc JOIN cells n
      ON n.tenant_id = $1 AND n.project = fc.project AND n.source_id = fc.source_id AND n.chunk_index IN (fc.chunk_index + 1, fc.chunk_index - 1) WHERE ${readableCell('n')}
    -- A conversation is a thread: each later turn links to its first one.
    UNION ALL SELECT fc.pos, fc.key, 'cell:' || n.node_id, 'same_thread', true FROM fc JOIN cells n
      ON n.tenant_id = $1 AND n.project = fc.project AND n.source_id = fc.source_id AND n.chunk_index = 0
      WHERE fc.chunk_index > 0 AND ${readableCell('n')} AND ${conversation('fc')}
    UNION ALL SELECT fc.pos, fc.key, 'cell:' || n.node_id, 'same_thread', true FROM fc JOIN cells n
      ON n.tenant_id = $1 AND n.project = fc.project AND n.source_id = fc.source_id AND n.chunk_index > 0
      WHERE fc.chunk_index = 0 AND ${readableCell('n')} AND ${conversation('fc')}
    UNION ALL SELECT f.pos, f.key, 'cell:' || n.node_id, 'in_scene', true FROM f JOIN cells n ON n.tenant_id = $1 AND n.scene_id = ${uuidOf('f.key', 'scene')} WHERE ${readableCell('n')}
    UNION ALL SELECT f.pos, f.key, 'cell:' || n.node_id, 'in_session', true FROM f JOIN cells n ON n.tenant_id = $1 AND n.session_id = ${uuidOf('f.key', 'session')} WHERE ${readableCell('n')}
    UNION ALL SELECT f.pos, f.key, 'cell:' || n.node_id, 'chunk_of', true FROM f JOIN cells n
      ON n.tenant_id = $1 AND n.project = ${sourceProject('f.key')} AND n.source_id = ${sourceId('f.key')} WHERE ${readableCell('n')}
    UNION ALL SELECT f.pos, f.key, 'cell:' || n.node_id, 'corroborated_by', true FROM f JOIN corroborations k ON k.tenant_id = $1 AND k.corroboration_id = ${uuidOf('f.key', 'corroboration')}
      JOIN cells n ON n.node_id = k.node_id WHERE ${readableCell('n')}
  )`;

/** Whether the caller may read the node keyed `key`, probed by its kind's primary key. */
const readable = (key: string): string => `CASE
      WHEN ${key} LIKE 'cell:%' THEN EXISTS (SELECT 1 FROM cells n WHERE n.node_id = ${uuidOf(key, 'cell')} AND ${readableCell('n')} OFFSET 0)
      WHEN ${key} LIKE 'scene:%' THEN EXISTS (SELECT 1 FROM scenes s WHERE s.tenant_id = $1 AND s.scene_id = ${uuidOf(key, 'scene')} AND ${visible('s.tenant_id', 's.project')} OFFSET 0)
      WHEN ${key} LIKE 'session:%' THEN EXISTS (SELECT 1 FROM sessions s WHERE s.tenant_id = $1 AND s.session_id = ${uuidOf(key, 'session')} AND ${visible('s.tenant_id', 's.project')} OFFSET 0)
      WHEN ${key} LIKE 'source:%' THEN EXISTS (SELECT 1 FROM sources s
        WHERE s.tenant_id = $1 AND s.project = ${sourceProject(key)} AND s.source_id = ${sourceId(key)} AND ${liveRow('s')} AND ${visible('s.tenant_id', 's.project')} OFFSET 0)
      ELSE false END`;

/**
 * What the chunk adds to the next level: each node not seen yet, through its first edge in
 * (position, type, id) order, the first `$5 - total` of them in that order, and one more to tell
 * whether max_members clipped the walk. Readability is probed in that order, after the sort, so a
 * clipped chunk probes only the nodes it takes.
 */
const NEXT_LEVEL = `
  first_edge AS (
    SELECT DISTINCT ON (e.other) e.other, e.pos, e.type, e.via, e.ok FROM e
    WHERE ${typeAllowed('e.type')} AND NOT EXISTS (SELECT 1 FROM unnest(w.seen) AS s(key) WHERE s.key = e.other)
    ORDER BY e.other, e.pos, e.type
  ),
  taken AS (
    SELECT d.* FROM (SELECT * FROM first_edge ORDER BY pos, type, other OFFSET 0) d
    WHERE CASE WHEN d.ok IS NOT NULL THEN d.ok ELSE ${readable('d.other')} END
    LIMIT $5 - w.total + 1
  )
  SELECT
    coalesce((array_agg(t.other ORDER BY t.pos, t.type, t.other))[1:$5 - w.total], '{}') AS keys,
    coalesce((array_agg(t.via ORDER BY t.pos, t.type, t.other))[1:$5 - w.total], '{}') AS vias,
    coalesce((array_agg(t.type ORDER BY t.pos, t.type, t.other))[1:$5 - w.total], '{}') AS rels,
    count(*) > $5 - w.total AS more
  FROM taken t`;

/**
 * Every edge among the members, read from the member cells' own rows (mc) once the walk is done:
 * the edges each kind derives, kept when both ends are members (members are readable by then).
 */
const MEMBER_EDGES = `
  SELECT DISTINCT x.from_key, x.to_key, x.type FROM (
    SELECT a.key AS from_key, 'cell:' || r.to_node_id AS to_key, r.relation_type AS type
      FROM mc a JOIN cell_relations r ON r.from_node_id = a.node_id WHERE ${held('r')} AND r.to_node_id IN (SELECT node_id FROM mc)
    UNION ALL SELECT a.key, 'cell:' || a.supersedes, 'supersedes' FROM mc a WHERE a.supersedes IN (SELECT node_id FROM mc)
    UNION ALL SELECT 'cell:' || a.superseded_by, a.key, 'supersedes' FROM mc a WHERE a.superseded_by IN (SELECT node_id FROM mc)
    UNION ALL SELECT a.key, 'cell:' || a.origin_node_id, 'promoted_from' FROM mc a WHERE a.origin_node_id IN (SELECT node_id FROM mc)
    UNION ALL SELECT 'cell:' || a.promoted_node_id, a.key, 'promoted_from' FROM mc a WHERE a.promoted_node_id IN (SELECT node_id FROM mc)
    UNION ALL SELECT a.key, 'scene:' || a.scene_id, 'in_scene' FROM mc a WHERE 'scene:' || a.scene_id IN (SELECT key FROM members)
    UNION ALL SELECT a.key, 'session:' || a.session_id, 'in_session' FROM mc a WHERE 'session:' || a.session_id IN (SELECT key FROM members)
    UNION ALL SELECT a.key, 'source:' || a.project || ':' || a.source_id, 'chunk_of' FROM mc a WHERE 'source:' || a.project || ':' || a.source_id IN (SELECT key FROM members)
    UNION ALL SELECT 'cell:' || k.node_id, m.key, 'corroborated_by' FROM members m
      JOIN corroborations k ON k.tenant_id = $1 AND k.corroboration_id = ${uuidOf('m.key', 'corroboration')} WHERE k.node_id IN (SELECT node_id FROM mc)
    UNION ALL SELECT a.key, b.key, 'next_chunk' FROM chunks a JOIN chunks b ON b.project = a.project AND b.source_id = a.source_id AND b.chunk_index = a.chunk_index + 1
    UNION ALL SELECT a.key, b.key, 'same_thread' FROM chunks a JOIN chunks b ON b.project = a.project AND b.source_id = a.source_id AND a.chunk_index > 0 AND b.chunk_index = 0
      WHERE ${conversation('b')}
  ) x WHERE ${typeAllowed('x.type')}`;

export const SUBGRAPH_SQL = `
WITH RECURSIVE walk (step, depth, keys, vias, rels, frontier, cursor, next, seen, total, truncated) AS (
  SELECT 0, 0, ARRAY[k.key], ARRAY[NULL::text], ARRAY[NULL::text], '{}'::text[], 0, ARRAY[k.key], ARRAY[k.key], 1, false
  FROM cells c CROSS JOIN LATERAL (SELECT 'cell:' || c.node_id AS key) k WHERE c.node_id = $3::uuid AND ${readableCell('c')}
  UNION ALL
  SELECT w.step + 1, st.depth, level.keys, level.vias, level.rels, st.frontier, st.cursor + cardinality(st.chunk), st.next || level.keys,
    w.seen || level.keys, w.total + cardinality(level.keys), level.more
  FROM walk w
  CROSS JOIN LATERAL (SELECT w.cursor >= cardinality(w.frontier) AS done) t
  CROSS JOIN LATERAL (
    SELECT
      CASE WHEN t.done THEN w.depth + 1 ELSE w.depth END AS depth,
      CASE WHEN t.done THEN w.next ELSE w.frontier END AS frontier,
      CASE WHEN t.done THEN 0 ELSE w.cursor END AS cursor,
      CASE WHEN t.done THEN '{}'::text[] ELSE w.next END AS next
  ) p
  CROSS JOIN LATERAL (SELECT p.*, p.frontier[p.cursor + 1 : p.cursor + greatest(${FIRST_CHUNK}, p.cursor)] AS chunk) st
  CROSS JOIN LATERAL (WITH ${LEVEL_EDGES}, ${NEXT_LEVEL}) level
  WHERE NOT w.truncated AND (NOT t.done OR (cardinality(w.next) > 0 AND w.depth < $4))
),
members AS (
  SELECT m.key, w.depth, m.via, m.rel, w.step, m.ord FROM walk w CROSS JOIN LATERAL unnest(w.keys, w.vias, w.rels) WITH ORDINALITY AS m(key, via, rel, ord)
),
mc AS MATERIALIZED (
  SELECT m.key, c.node_id, c.project, c.cell_type, left(c.content, $7) AS preview, c.supersedes, c.superseded_by, c.origin_node_id, c.promoted_node_id,
    c.scene_id, c.session_id, c.source_id, c.chunk_index
  FROM members m JOIN cells c ON c.node_id = ${uuidOf('m.key', 'cell')} AND c.tenant_id = $1
),
chunks AS (SELECT * FROM mc WHERE source_id IS NOT NULL)
SELECT
  (SELECT coalesce(jsonb_agg(jsonb_build_object(
      'kind', split_part(m.key, ':', 1),
      'id', ${idOf('m.key')},
      'project', coalesce(c.project, sc.project, se.project, ${sourceProject('m.key')}, kc.project),
      'cell_type', c.cell_type,
      'preview', coalesce(c.preview, sc.title, so.title, left(k.content, $7)),
      'depth', m.depth,
      'discovered_relation', m.rel,
      'discovered_via', ${idOf('m.via')}
    ) ORDER BY m.step, m.ord), '[]'::jsonb)
   FROM members m
   LEFT JOIN mc c ON c.key = m.key
   LEFT JOIN LATERAL (SELECT * FROM scenes x WHERE x.tenant_id = $1 AND x.scene_id = ${uuidOf('m.key', 'scene')} OFFSET 0) sc ON true
   LEFT JOIN LATERAL (SELECT * FROM sessions x WHERE x.tenant_id = $1 AND x.session_id = ${uuidOf('m.key', 'session')} OFFSET 0) se ON true
   LEFT JOIN LATERAL (SELECT * FROM sources x WHERE x.tenant_id = $1 AND x.project = ${sourceProject('m.key')} AND x.source_id = ${sourceId('m.key')} OFFSET 0) so ON true
   LEFT JOIN LATERAL (SELECT * FROM corroborations x WHERE x.tenant_id = $1 AND x.corroboration_id = ${uuidOf('m.key', 'corroboration')} OFFSET 0) k ON true
   LEFT JOIN LATERAL (SELECT * FROM cells x WHERE x.tenant_id = $1 AND x.node_id = k.node_id OFFSET 0) kc ON true) AS members,
  (SELECT coalesce(jsonb_agg(jsonb_build_object('from', ${idOf('x.from_key')}, 'to', ${idOf('x.to_key')}, 'type', x.type)
      ORDER BY x.from_key, x.to_key, x.type), '[]'::jsonb) FROM (${MEMBER_EDGES}) x) AS relations,
  (SELECT coalesce(bool_or(truncated), false) FROM walk) AS truncated,
  (SELECT count(*) FROM walk) AS levels`;
