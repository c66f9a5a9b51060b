/**
 * A principal's current project and session, derived from the database so every replica agrees:
 * its most recently opened session that is still open (and within its key's scope), else its
 * key's default project.
 */
import type { Principal } from '../core/principal.js';
import type { Queryable } from '../store/db.js';
import { findCurrentSession } from '../store/session-repository.js';
import { readableProjects } from './authorization.js';

export interface SessionScope {
  readonly project: string;
  readonly sceneId: string | null;
  readonly sessionId: string | null;
}

export async function resolveSessionScope(q: Queryable, principal: Principal): Promise<SessionScope> {
  const session = await findCurrentSession(q, principal.tenantId, principal.agent, readableProjects(principal));
  if (session !== null) {
    return { project: session.project, sceneId: session.scene_id, sessionId: session.session_id };
  }
  return { project: principal.defaultProject, sceneId: null, sessionId: null };
}
