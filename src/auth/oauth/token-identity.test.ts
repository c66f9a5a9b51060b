import { describe, expect, it } from 'vitest';
import { ForbiddenError } from '../../core/errors.js';
import { identityFromClaims, type IdentityPolicy } from './token-identity.js';
import { InsufficientScopeError } from './oauth-errors.js';

const POLICY: IdentityPolicy = {
  issuer: 'https://id.example.com',
  tenantClaim: 'hyphae_tenant',
  defaultTenant: undefined,
  allowedTenants: ['acme', 'globex'],
  agentClaim: 'sub',
  projectsClaim: undefined,
};

const CLAIMS = { sub: 'auth0|6501f', hyphae_tenant: 'acme', scope: 'openid hyphae:read hyphae:write', exp: 2_000_000_000 };

function refusal(claims: Record<string, unknown>, policy: IdentityPolicy = POLICY): Error {
  try {
    identityFromClaims(claims, policy);
  } catch (error) {
    if (error instanceof Error) return error;
  }
  throw new Error('the claims were accepted');
}

describe('identityFromClaims', () => {
  it('takes tenant, agent and roles from the claims, every project by default', () => {
    expect(identityFromClaims(CLAIMS, POLICY)).toEqual({
      issuer: 'https://id.example.com',
      tenantId: 'acme',
      agent: 'auth0|6501f',
      roles: ['reader', 'writer'],
      projects: ['*'],
      defaultProject: 'default',
      expiresAt: 2_000_000_000_000,
    });
  });

  it('marks a token issued to the console client as a person (client_id, else azp), and no other token', () => {
    const withConsole: IdentityPolicy = { ...POLICY, console: { clientId: 'hyphae-console', scope: 'openid hyphae:read' } };
    expect(identityFromClaims({ ...CLAIMS, client_id: 'hyphae-console' }, withConsole).human).toBe(true);
    expect(identityFromClaims({ ...CLAIMS, azp: 'hyphae-console' }, withConsole).human).toBe(true);
    expect(identityFromClaims({ ...CLAIMS, client_id: 'ci-agent', azp: 'hyphae-console' }, withConsole).human).toBeUndefined();
    expect(identityFromClaims({ ...CLAIMS, client_id: 'ci-agent' }, withConsole).human).toBeUndefined();
    expect(identityFromClaims({ ...CLAIMS, client_id: 'hyphae-console' }, POLICY).human).toBeUndefined();
  });

  it('maps each hyphae scope to its role, from `scope` or an `scp` array', () => {
    expect(identityFromClaims({ ...CLAIMS, scope: 'hyphae:admin' }, POLICY).roles).toEqual(['admin']);
    expect(identityFromClaims({ ...CLAIMS, scope: undefined, scp: ['hyphae:read'] }, POLICY).roles).toEqual(['reader']);
  });

  it('refuses a token granting none of the hyphae scopes with insufficient_scope', () => {
    const error = refusal({ ...CLAIMS, scope: 'openid profile other:read' });
    expect(error).toBeInstanceOf(InsufficientScopeError);
    expect((error as InsufficientScopeError).requiredScopes).toEqual(['hyphae:read', 'hyphae:write']);
  });

  it('uses the default tenant when the claim is absent, and only then', () => {
    const withDefault = { ...POLICY, defaultTenant: 'globex' };
    expect(identityFromClaims({ ...CLAIMS, hyphae_tenant: undefined }, withDefault).tenantId).toBe('globex');
    expect(identityFromClaims(CLAIMS, withDefault).tenantId).toBe('acme');
    expect(refusal({ ...CLAIMS, hyphae_tenant: undefined })).toBeInstanceOf(ForbiddenError);
  });

  it('refuses a tenant the configuration does not allow, or that is no tenant name', () => {
    expect(refusal({ ...CLAIMS, hyphae_tenant: 'initech' }).message).toContain('does not allow');
    expect(refusal({ ...CLAIMS, hyphae_tenant: ['acme'] })).toBeInstanceOf(ForbiddenError);
    expect(refusal({ ...CLAIMS, hyphae_tenant: '../acme' })).toBeInstanceOf(ForbiddenError);
    expect(identityFromClaims({ ...CLAIMS, hyphae_tenant: 'initech' }, { ...POLICY, allowedTenants: ['*'] }).tenantId).toBe('initech');
  });

  it('reads the agent from the configured claim and refuses what is no agent name', () => {
    expect(identityFromClaims({ ...CLAIMS, email: 'bob+ci@acme.com' }, { ...POLICY, agentClaim: 'email' }).agent).toBe('bob+ci@acme.com');
    expect(refusal({ ...CLAIMS, sub: undefined })).toBeInstanceOf(ForbiddenError);
    expect(refusal({ ...CLAIMS, sub: 'has space' })).toBeInstanceOf(ForbiddenError);
    expect(refusal({ ...CLAIMS, sub: 'x'.repeat(129) })).toBeInstanceOf(ForbiddenError);
  });

  it('scopes projects by the projects claim when configured, refusing a token without it', () => {
    const policy = { ...POLICY, projectsClaim: 'hyphae_projects' };
    expect(identityFromClaims({ ...CLAIMS, hyphae_projects: ['web', 'infra/ops'] }, policy)).toMatchObject({ projects: ['web', 'infra/ops'], defaultProject: 'web' });
    expect(identityFromClaims({ ...CLAIMS, hyphae_projects: 'web api' }, policy).projects).toEqual(['web', 'api']);
    expect(identityFromClaims({ ...CLAIMS, hyphae_projects: ['*'] }, policy)).toMatchObject({ projects: ['*'], defaultProject: 'default' });
    expect(refusal(CLAIMS, policy)).toBeInstanceOf(ForbiddenError);
    expect(refusal({ ...CLAIMS, hyphae_projects: [] }, policy)).toBeInstanceOf(ForbiddenError);
    expect(refusal({ ...CLAIMS, hyphae_projects: ['ok', '-bad'] }, policy)).toBeInstanceOf(ForbiddenError);
  });
});
