/**
 * Who a verified access token speaks for, from its claims alone (never from a request body): the
 * tenant from the tenant claim or the configured default, refused unless the configuration allows
 * it; the agent from the agent claim; roles from the hyphae scopes; projects from the optional
 * projects claim, else every project of the tenant.
 */
import { ForbiddenError } from '../../core/errors.js';
import { ANY_TENANT, type OAuthConfig } from '../../core/oauth-config.js';
import { ALL_PROJECTS, type Principal } from '../../core/principal.js';
import { createKeyInputSchema, projectSchema } from '../../core/schemas.js';
import { AGENT_NAME_MESSAGE, isAgentName } from '../../core/text-rules.js';
import { DEFAULT_PROJECT } from '../key-administration.js';
import { AGENT_SCOPES, rolesFromScopes, scopesOfClaims } from './hyphae-scopes.js';
import { InsufficientScopeError } from './oauth-errors.js';
import type { VerifiedClaims } from './token-claim-rules.js';

/** A principal but for what the server keeps itself (key id, trust), and where the token came from. */
export interface TokenIdentity extends Omit<Principal, 'keyId' | 'trust'> {
  readonly issuer: string;
  /** When the token stops being valid (ms since the epoch), if it says. */
  readonly expiresAt: number | undefined;
}

export type IdentityPolicy = Pick<OAuthConfig, 'issuer' | 'tenantClaim' | 'defaultTenant' | 'allowedTenants' | 'agentClaim' | 'projectsClaim' | 'console'>;

const tenantSchema = createKeyInputSchema.shape.tenant;

export function identityFromClaims(claims: VerifiedClaims, policy: IdentityPolicy): TokenIdentity {
  const roles = rolesFromScopes(scopesOfClaims(claims));
  if (roles.length === 0) throw new InsufficientScopeError(AGENT_SCOPES);
  const projects = projectsOf(claims, policy.projectsClaim);
  return {
    issuer: policy.issuer,
    tenantId: tenantOf(claims, policy),
    agent: agentOf(claims, policy.agentClaim),
    roles,
    projects,
    defaultProject: projects.find((project) => project !== ALL_PROJECTS) ?? DEFAULT_PROJECT,
    expiresAt: typeof claims.exp === 'number' ? claims.exp * 1000 : undefined,
    ...(issuedToConsole(claims, policy) ? { human: true } : {}),
  };
}

/** A token issued to the console's client is a person's sign-in (RFC 9068 `client_id`, or `azp` where the provider says it that way). */
function issuedToConsole(claims: VerifiedClaims, policy: IdentityPolicy): boolean {
  const consoleClient = policy.console?.clientId;
  if (consoleClient === undefined) return false;
  return claims.client_id === consoleClient || (claims.client_id === undefined && claims.azp === consoleClient);
}

function tenantOf(claims: VerifiedClaims, policy: IdentityPolicy): string {
  const claimed = claims[policy.tenantClaim];
  if (claimed === undefined && policy.defaultTenant === undefined) throw new ForbiddenError(`the access token has no ${policy.tenantClaim} claim naming its tenant`);
  const tenant = claimed ?? policy.defaultTenant;
  if (!tenantSchema.safeParse(tenant).success) throw new ForbiddenError(`the access token's ${policy.tenantClaim} claim is not a tenant name`);
  const name = tenant as string;
  if (!policy.allowedTenants.includes(ANY_TENANT) && !policy.allowedTenants.includes(name)) {
    throw new ForbiddenError('the access token names a tenant this server does not allow');
  }
  return name;
}

function agentOf(claims: VerifiedClaims, agentClaim: string): string {
  const agent = claims[agentClaim];
  if (!isAgentName(agent)) throw new ForbiddenError(`the access token's ${agentClaim} claim is not an agent name: it ${AGENT_NAME_MESSAGE}`);
  return agent;
}

function projectsOf(claims: VerifiedClaims, projectsClaim: string | undefined): string[] {
  if (projectsClaim === undefined) return [ALL_PROJECTS];
  const value = claims[projectsClaim];
  const projects = typeof value === 'string' ? value.split(' ').filter((item) => item.length > 0) : value;
  const valid =
    Array.isArray(projects) &&
    projects.length > 0 &&
    projects.every((project) => project === ALL_PROJECTS || projectSchema.safeParse(project).success);
  // With the claim configured, a token without it is refused rather than given every project.
  if (!valid) throw new ForbiddenError(`the access token's ${projectsClaim} claim lists no valid projects`);
  return projects as string[];
}
