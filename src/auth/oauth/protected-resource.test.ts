import { describe, expect, it } from 'vitest';
import { InsufficientScopeError, InvalidTokenError } from './oauth-errors.js';
import { bearerChallenge, protectedResourceMetadata, PROTECTED_RESOURCE_PATHS } from './protected-resource.js';

const CONFIG = { resource: 'https://hyphae.example.com', issuer: 'https://id.example.com' };

describe('protected resource metadata (RFC 9728)', () => {
  it('names the resource, its authorization server, the hyphae scopes and header bearer tokens', () => {
    expect(protectedResourceMetadata(CONFIG)).toEqual({
      resource: 'https://hyphae.example.com',
      authorization_servers: ['https://id.example.com'],
      scopes_supported: ['hyphae:read', 'hyphae:write', 'hyphae:admin'],
      bearer_methods_supported: ['header'],
      resource_name: 'Hyphae',
    });
  });

  it('serves the root document and the one path-suffixed for /mcp, each naming its own resource', () => {
    expect(PROTECTED_RESOURCE_PATHS.map(({ path, resourcePath }) => [path, protectedResourceMetadata(CONFIG, resourcePath).resource])).toEqual([
      ['/.well-known/oauth-protected-resource', 'https://hyphae.example.com'],
      ['/.well-known/oauth-protected-resource/mcp', 'https://hyphae.example.com/mcp'],
    ]);
  });
});

describe('WWW-Authenticate challenges (RFC 6750)', () => {
  const metadata = 'resource_metadata="https://hyphae.example.com/.well-known/oauth-protected-resource"';

  it('point a request without credentials at the metadata and ask for the agent scopes', () => {
    expect(bearerChallenge(CONFIG)).toBe(`Bearer ${metadata}, scope="hyphae:read hyphae:write"`);
  });

  it('say invalid_token for a refused token', () => {
    expect(bearerChallenge(CONFIG, new InvalidTokenError('expired'))).toBe(
      `Bearer ${metadata}, error="invalid_token", error_description="invalid access token: expired", scope="hyphae:read hyphae:write"`,
    );
  });

  it('say insufficient_scope naming the scope needed', () => {
    expect(bearerChallenge(CONFIG, new InsufficientScopeError(['hyphae:admin']))).toBe(
      `Bearer ${metadata}, error="insufficient_scope", error_description="the access token lacks the scope hyphae:admin", scope="hyphae:admin"`,
    );
  });

  it('never put a quote, backslash or control character inside a value', () => {
    expect(bearerChallenge(CONFIG, new InvalidTokenError('a "quoted" \\ thing\n'))).toContain('error_description="invalid access token: a ?quoted? ? thing?"');
  });
});
