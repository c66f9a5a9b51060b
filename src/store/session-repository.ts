/** SQL for working sessions. Every statement is scoped by tenant_id. */
import type { Queryable } from './db.js';
import { isoText } from './sql-time.js';

export interface SessionRow {
  readonly session_id: string;
  readonly agent: string;
  readonly project: string;
  readonly scene_id: string;
  readonly opened_at: string;
  readonly closed_at: string | null;
}

const SESSION_COLUMNS = `session_id::text AS session_id, agent, project, scene_id::text AS scene_id, ${isoText('opened_at')} AS opened_at,
  CASE WHEN closed_at IS NULL THEN NULL ELSE ${isoText('closed_at')} END AS closed_at`;

export interface NewSession {
  readonly tenantId: string;
  readonly sessionId: string;
  readonly agent: string;
  readonly project: string;
  readonly sceneId: string;
}

export async function insertSession(q: Queryable, session: NewSession): Promise<SessionRow> {
  const result = await q.query<SessionRow>(
    `INSERT INTO sessions (tenant_id, session_id, agent, project, scene_id) VALUES ($1, $2, $3, $4, $5) RETURNING ${SESSION_COLUMNS}`,
    [session.tenantId, session.sessionId, session.agent, session.project, session.sceneId],
  );
  const row = result.rows[0];
  if (row === undefined) throw new Error('INSERT … RETURNING returned no row');
  return row;
}

/**
 * The agent's most recently opened session that is still open, within the project scope (null =
 * all projects): it defines the current project. Same rule as the kNN's current-project subquery.
 */
export async function findCurrentSession(q: Queryable, tenantId: string, agent: string, projects: readonly string[] | null): Promise<SessionRow | null> {
  const result = await q.query<SessionRow>(
    `SELECT ${SESSION_COLUMNS} FROM sessions WHERE tenant_id = $1 AND agent = $2 AND closed_at IS NULL
       AND ($3::text[] IS NULL OR project = ANY($3::text[]))
     ORDER BY opened_at DESC, session_id DESC LIMIT 1`,
    [tenantId, agent, projects],
  );
  return result.rows[0] ?? null;
}

/** Closes the agent's session once; a second close returns the first closed_at. Null when not the agent's. */
export async function closeSession(q: Queryable, tenantId: string, agent: string, sessionId: string): Promise<SessionRow | null> {
  const closed = await q.query<SessionRow>(
    `UPDATE sessions SET closed_at = clock_timestamp() WHERE tenant_id = $1 AND agent = $2 AND session_id = $3 AND closed_at IS NULL
     RETURNING ${SESSION_COLUMNS}`,
    [tenantId, agent, sessionId],
  );
  if (closed.rows[0] !== undefined) return closed.rows[0];
  const existing = await q.query<SessionRow>(`SELECT ${SESSION_COLUMNS} FROM sessions WHERE tenant_id = $1 AND agent = $2 AND session_id = $3`, [
    tenantId,
    agent,
    sessionId,
  ]);
  return existing.rows[0] ?? null;
}
