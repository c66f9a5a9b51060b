import { describe, expect, it } from 'vitest';
import { loadConfig } from './config.js';
import { InvalidArgumentError } from './errors.js';

const ISSUER = 'https://id.example.com/realms/hyphae';
const PUBLIC_URL = 'https://hyphae.example.com';

function refusal(env: Record<string, string>): InvalidArgumentError {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof InvalidArgumentError) return error;
    throw error;
  }
  throw new Error('the configuration was accepted');
}

describe('OAuth configuration', () => {
  it('is off without HYPHAE_OAUTH_ISSUER: API keys only, as before', () => {
    const config = loadConfig({});
    expect(config.oauth).toBeUndefined();
    expect(config.http.publicUrl).toBeUndefined();
  });

  it('takes the public URL as resource and audience, with the documented claim defaults', () => {
    const config = loadConfig({ HYPHAE_OAUTH_ISSUER: ISSUER, HYPHAE_PUBLIC_URL: 'HTTPS://Hyphae.Example.com:443/', HYPHAE_OAUTH_DEFAULT_TENANT: 'acme' });
    expect(config.http.publicUrl).toBe(PUBLIC_URL);
    expect(config.oauth).toEqual({
      issuer: ISSUER,
      resource: PUBLIC_URL,
      audiences: [PUBLIC_URL, `${PUBLIC_URL}/`, `${PUBLIC_URL}/mcp`],
      tenantClaim: 'hyphae_tenant',
      defaultTenant: 'acme',
      allowedTenants: ['acme'],
      agentClaim: 'sub',
      projectsClaim: undefined,
      acceptAnyJwtTyp: false,
      introspection: undefined,
    });
  });

  it('reads the audience override, the claim names, the allowed tenants and the introspection client', () => {
    const oauth = loadConfig({
      HYPHAE_OAUTH_ISSUER: ISSUER,
      HYPHAE_PUBLIC_URL: PUBLIC_URL,
      HYPHAE_OAUTH_AUDIENCE: 'api://hyphae',
      HYPHAE_OAUTH_TENANT_CLAIM: 'org',
      HYPHAE_OAUTH_AGENT_CLAIM: 'email',
      HYPHAE_OAUTH_PROJECTS_CLAIM: 'projects',
      HYPHAE_OAUTH_ALLOWED_TENANTS: 'acme, globex',
      HYPHAE_OAUTH_INTROSPECTION_CLIENT_ID: 'hyphae',
      HYPHAE_OAUTH_INTROSPECTION_CLIENT_SECRET: 's3cret',
    }).oauth;
    expect(oauth).toMatchObject({
      audiences: ['api://hyphae'],
      tenantClaim: 'org',
      agentClaim: 'email',
      projectsClaim: 'projects',
      defaultTenant: undefined,
      allowedTenants: ['acme', 'globex'],
      introspection: { clientId: 'hyphae', clientSecret: 's3cret' },
    });
  });

  it('accepts JWTs of any typ only with HYPHAE_OAUTH_ACCEPT_JWT_TYP on', () => {
    const base = { HYPHAE_OAUTH_ISSUER: ISSUER, HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_DEFAULT_TENANT: 'acme' };
    expect(loadConfig(base).oauth?.acceptAnyJwtTyp).toBe(false);
    expect(loadConfig({ ...base, HYPHAE_OAUTH_ACCEPT_JWT_TYP: '1' }).oauth?.acceptAnyJwtTyp).toBe(true);
    expect(loadConfig({ ...base, HYPHAE_OAUTH_ACCEPT_JWT_TYP: 'false' }).oauth?.acceptAnyJwtTyp).toBe(false);
    expect(refusal({ ...base, HYPHAE_OAUTH_ACCEPT_JWT_TYP: 'yes' }).message).toContain('HYPHAE_OAUTH_ACCEPT_JWT_TYP');
    expect(refusal({ HYPHAE_OAUTH_ACCEPT_JWT_TYP: '1' }).message).toContain('HYPHAE_OAUTH_ACCEPT_JWT_TYP');
  });

  it('makes the console a client of the issuer when given its client id, asking for every scope unless told', () => {
    const base = { HYPHAE_OAUTH_ISSUER: ISSUER, HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_DEFAULT_TENANT: 'acme' };
    expect(loadConfig(base).oauth?.console).toBeUndefined();
    expect(loadConfig({ ...base, HYPHAE_CONSOLE_OAUTH_CLIENT_ID: 'hyphae-console' }).oauth?.console).toEqual({
      clientId: 'hyphae-console',
      scope: 'hyphae:read hyphae:write hyphae:admin',
    });
    const narrow = loadConfig({ ...base, HYPHAE_CONSOLE_OAUTH_CLIENT_ID: 'hyphae-console', HYPHAE_CONSOLE_OAUTH_SCOPES: ' hyphae:read ' });
    expect(narrow.oauth?.console?.scope).toBe('hyphae:read');
  });

  it('accepts http only on loopback, for the issuer and the public URL alike', () => {
    const local = loadConfig({ HYPHAE_OAUTH_ISSUER: 'http://127.0.0.1:9000', HYPHAE_PUBLIC_URL: 'http://localhost:8787', HYPHAE_OAUTH_ALLOWED_TENANTS: '*' });
    expect(local.oauth?.issuer).toBe('http://127.0.0.1:9000');
    expect(refusal({ HYPHAE_OAUTH_ISSUER: 'http://id.example.com', HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_ALLOWED_TENANTS: '*' }).message).toContain('HYPHAE_OAUTH_ISSUER');
    expect(refusal({ HYPHAE_OAUTH_ISSUER: ISSUER, HYPHAE_PUBLIC_URL: 'http://hyphae.example.com', HYPHAE_OAUTH_ALLOWED_TENANTS: '*' }).message).toContain('HYPHAE_PUBLIC_URL');
  });

  it.each([
    [{ HYPHAE_OAUTH_ISSUER: ISSUER, HYPHAE_OAUTH_DEFAULT_TENANT: 'acme' }, 'HYPHAE_PUBLIC_URL'],
    [{ HYPHAE_OAUTH_ISSUER: ISSUER, HYPHAE_PUBLIC_URL: PUBLIC_URL }, 'HYPHAE_OAUTH_ALLOWED_TENANTS'],
    [{ HYPHAE_OAUTH_ISSUER: ISSUER, HYPHAE_PUBLIC_URL: `${PUBLIC_URL}/hyphae`, HYPHAE_OAUTH_DEFAULT_TENANT: 'acme' }, 'HYPHAE_PUBLIC_URL'],
    [{ HYPHAE_OAUTH_ISSUER: 'not a url', HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_DEFAULT_TENANT: 'acme' }, 'HYPHAE_OAUTH_ISSUER'],
    [{ HYPHAE_OAUTH_ISSUER: ISSUER, HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_DEFAULT_TENANT: 'bad tenant!' }, 'HYPHAE_OAUTH_DEFAULT_TENANT'],
    [{ HYPHAE_OAUTH_ISSUER: ISSUER, HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_ALLOWED_TENANTS: 'acme', HYPHAE_OAUTH_DEFAULT_TENANT: 'globex' }, 'HYPHAE_OAUTH_DEFAULT_TENANT'],
    [{ HYPHAE_OAUTH_ISSUER: ISSUER, HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_ALLOWED_TENANTS: 'acme,no way' }, 'HYPHAE_OAUTH_ALLOWED_TENANTS'],
    [{ HYPHAE_OAUTH_ISSUER: ISSUER, HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_DEFAULT_TENANT: 'acme', HYPHAE_OAUTH_INTROSPECTION_CLIENT_ID: 'x' }, 'HYPHAE_OAUTH_INTROSPECTION_CLIENT_SECRET'],
    [{ HYPHAE_OAUTH_DEFAULT_TENANT: 'acme' }, 'HYPHAE_OAUTH_DEFAULT_TENANT'],
    [{ HYPHAE_CONSOLE_OAUTH_CLIENT_ID: 'hyphae-console' }, 'HYPHAE_CONSOLE_OAUTH_CLIENT_ID'],
  ])('refuses %o naming %s', (env, variable) => {
    expect(refusal(env).message).toContain(variable);
  });
});
