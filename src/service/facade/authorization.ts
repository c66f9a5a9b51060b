/** Role and project-scope checks of the facade. Anything outside read scope reads as NOT_FOUND elsewhere. */
import type { Role } from '../../core/cell-types.js';
import { ForbiddenError } from '../../core/errors.js';
import { ALL_PROJECTS, canAccessProject, hasRole, type Principal } from '../../core/principal.js';

/** `details.required_role` lets a surface name what is missing (an OAuth caller is told the scope). */
export function requireRole(principal: Principal, role: Role): void {
  if (!hasRole(principal, role)) throw new ForbiddenError(`this operation needs the ${role} role`, { details: { required_role: role } });
}

export function requireProject(principal: Principal, project: string): void {
  if (!canAccessProject(principal, project)) throw new ForbiddenError(`project ${project} is outside your key's project scope`);
}

/** The projects a principal may read, or null for all of the tenant's projects. */
export function readableProjects(principal: Principal): readonly string[] | null {
  return principal.projects.includes(ALL_PROJECTS) ? null : principal.projects;
}

/** Operations that reach across every project of the tenant (an agent's or the tenant's erasure, its receipts) need a key scoped to all of them. */
export function requireTenantScope(principal: Principal): void {
  if (!principal.projects.includes(ALL_PROJECTS)) throw new ForbiddenError('this operation needs a key scoped to every project of the tenant', { details: { required_projects: ALL_PROJECTS } });
}
