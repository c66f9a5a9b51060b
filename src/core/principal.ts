import type { Role } from './cell-types.js';

/** Who is calling: resolved from an API key or an OAuth access token by the auth layer, never from a request body. */
export interface Principal {
  readonly tenantId: string;
  readonly agent: string;
  /** The API key's id; for an access token, an id derived from its issuer, tenant and agent (no key row has it). */
  readonly keyId: string;
  readonly roles: readonly Role[];
  /** Read/write project scope; `['*']` means every project of the tenant. */
  readonly projects: readonly string[];
  /** Where cells go when the principal has no open session. */
  readonly defaultProject: string;
  readonly trust: number;
  /** A person signed in to the web console (an access token issued to its client), not an agent's credential. */
  readonly human?: boolean;
  /**
   * Until when the access token this principal came from is known valid (ms since the epoch): a
   * JWT's `exp`; for an introspected token, when its answer is due again (never past `exp`). Absent for an API key.
   */
  readonly expiresAt?: number;
  /** An introspected token's check, asked again once `expiresAt` has passed: its next `expiresAt`, or a rejection once revoked. */
  readonly recheck?: () => Promise<number>;
}

export const ALL_PROJECTS = '*';
/** The trust of a key minted without one, and of an agent that holds no key. */
export const DEFAULT_TRUST = 0.5;

export function canAccessProject(principal: Principal, project: string): boolean {
  return principal.projects.includes(ALL_PROJECTS) || principal.projects.includes(project);
}

export function hasRole(principal: Principal, role: Role): boolean {
  if (principal.roles.includes('admin')) return true;
  if (role === 'reader') return principal.roles.includes('writer') || principal.roles.includes('reader');
  return principal.roles.includes(role);
}
