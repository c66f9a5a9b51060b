/**
 * Authority that cannot grow: which keys a caller (a key or an access token) may mint, list and
 * revoke. A key is within a caller's authority when its projects, roles and trust are each within
 * the caller's; docs/security.md ("Who may administer which keys") is the table these rules answer.
 */
import type { Role } from './cell-types.js';
import { ALL_PROJECTS } from './principal.js';

/** What bounds a key's reach: a principal, a stored key and a key to mint all have it. */
export interface KeyReach {
  readonly roles: readonly Role[];
  readonly projects: readonly string[];
  readonly trust: number;
}

/** The role hierarchy of `hasRole`: admin grants writer and reader, writer grants reader. */
const ROLE_RANK: Readonly<Record<Role, number>> = { reader: 1, writer: 2, admin: 3 };

/** Why a key is not within the caller's authority: the first of its reaches that is wider. */
export type ReachExcess = 'projects' | 'roles' | 'trust';

/** Why a mint is refused: the key's own reach, or the agent it is for. */
export type MintRefusal = ReachExcess | 'agent_keys' | 'agent_trust';

export function isTenantWide(reach: Pick<KeyReach, 'projects'>): boolean {
  return reach.projects.includes(ALL_PROJECTS);
}

/** A tenant-wide admin: the only caller that may mint tenant-wide keys or raise an agent's trust. */
export function isTenantAdmin(reach: Pick<KeyReach, 'projects' | 'roles'>): boolean {
  return isTenantWide(reach) && reach.roles.includes('admin');
}

/** The first way `key` reaches beyond `caller`, or null when it is within the caller's authority. */
export function reachExcess(caller: KeyReach, key: KeyReach): ReachExcess | null {
  if (!projectsWithin(caller.projects, key.projects)) return 'projects';
  const callerRank = Math.max(0, ...caller.roles.map((role) => ROLE_RANK[role]));
  if (key.roles.some((role) => ROLE_RANK[role] > callerRank)) return 'roles';
  if (trustAbove(key.trust, caller.trust)) return 'trust';
  return null;
}

export function withinAuthority(caller: KeyReach, key: KeyReach): boolean {
  return reachExcess(caller, key) === null;
}

/**
 * Why `caller` may not mint `key` for an agent holding `agentKeys` (its unrevoked keys), or null.
 * Beside the key's own reach: the agent's identity is taken over only when each of its keys is
 * within the caller's authority, and only a tenant-wide admin may raise its trust (the highest
 * trust among its keys) — anyone else mints at most the agent's present trust. An agent the
 * tenant already knows without an unrevoked key (`agentKnown`: revoked keys, an inbox — an OAuth
 * agent, or one whose keys were revoked) may hold any reach elsewhere, so only a tenant-wide admin
 * mints for it.
 */
export function mintRefusal(caller: KeyReach, key: KeyReach, agentKeys: readonly KeyReach[], agentKnown = agentKeys.length > 0): MintRefusal | null {
  const excess = reachExcess(caller, key);
  if (excess !== null) return excess;
  if (agentKeys.length === 0) return agentKnown && !isTenantAdmin(caller) ? 'agent_keys' : null;
  if (agentKeys.some((held) => !withinAuthority(caller, held))) return 'agent_keys';
  const agentTrust = Math.max(...agentKeys.map((held) => held.trust));
  if (trustAbove(key.trust, agentTrust) && !isTenantAdmin(caller)) return 'agent_trust';
  return null;
}

/** Compared as stored (PostgreSQL `real`): 0.7 as read back may be 0.699999988, and still admits a key of 0.7. */
function trustAbove(trust: number, bound: number): boolean {
  return Math.fround(trust) > Math.fround(bound);
}

function projectsWithin(outer: readonly string[], inner: readonly string[]): boolean {
  if (outer.includes(ALL_PROJECTS)) return true;
  return inner.every((project) => project !== ALL_PROJECTS && outer.includes(project));
}
