/**
 * A principal's current project and session, derived from the database so every replica agrees:
 * its most recently opened session that is still open (and within its key's scope), else its
 * key's default project.
 */
import type { Principal } from '../../core/principal.js';
import type { Queryable } from '../../store/db.js';
import { findCurrentSession } from '../../store/session-repository.js';
import { readableProjects } from '../facade/authorization.js';

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

/** Agents whose scopes are remembered at most; past it the memory starts over. */
const MAX_REMEMBERED_AGENTS = 10_000;

/**
 * The scopes a store resolves, remembered per API key when this process owns the database alone —
 * the embedded folder, whose lock keeps every other process out — so every session opened, closed
 * or purged passes through it. A change forgets the agent's (or the tenant's) scopes inside the
 * transaction that makes it: PGlite runs one transaction at a time, so no store can read a
 * forgotten scope between that change and its commit. Shared databases resolve every time.
 */
export class SessionScopes {
  /** tenant → agent → key id → scope. */
  private readonly remembered = new Map<string, Map<string, Map<string, SessionScope>>>();
  private agents = 0;

  constructor(private readonly ownsDatabase: boolean) {}

  async resolve(q: Queryable, principal: Principal): Promise<SessionScope> {
    if (!this.ownsDatabase) return resolveSessionScope(q, principal);
    const byKey = this.remembered.get(principal.tenantId)?.get(principal.agent);
    const known = byKey?.get(principal.keyId);
    if (known !== undefined) return known;
    const scope = await resolveSessionScope(q, principal);
    this.remember(principal, scope);
    return scope;
  }

  /** The agent opened or closed a session. */
  forgetAgent(tenantId: string, agent: string): void {
    if (this.remembered.get(tenantId)?.delete(agent) === true) this.agents -= 1;
  }

  /** Sessions of the tenant were removed (a project purge). */
  forgetTenant(tenantId: string): void {
    this.agents -= this.remembered.get(tenantId)?.size ?? 0;
    this.remembered.delete(tenantId);
  }

  private remember(principal: Principal, scope: SessionScope): void {
    let byAgent = this.remembered.get(principal.tenantId);
    if (byAgent === undefined) {
      byAgent = new Map();
      this.remembered.set(principal.tenantId, byAgent);
    }
    let byKey = byAgent.get(principal.agent);
    if (byKey === undefined) {
      if (this.agents >= MAX_REMEMBERED_AGENTS) {
        this.remembered.clear();
        this.agents = 0;
        this.remember(principal, scope);
        return;
      }
      byKey = new Map();
      byAgent.set(principal.agent, byKey);
      this.agents += 1;
    }
    byKey.set(principal.keyId, scope);
  }
}
