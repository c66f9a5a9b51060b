import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../core/errors.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../../test/support/authorization-server.js';
import { rejectionOf } from '../../../test/support/rejection.js';
import { AccessTokenVerifier, type JwksCachePolicy } from './access-token-verifier.js';
import { IssuerMetadataSource } from './issuer-metadata-source.js';
import { InvalidTokenError } from './oauth-errors.js';
import { TokenIntrospector } from './token-introspection.js';

const RESOURCE = 'http://127.0.0.1:8787';
const AUDIENCES = [RESOURCE, `${RESOURCE}/`, `${RESOURCE}/mcp`];
const OPAQUE_RESOURCE = 'http://localhost:8787';
const AGENT_SCOPE = 'hyphae:read hyphae:write';

let as: AuthorizationServer;
let otherAs: AuthorizationServer;

beforeAll(async () => {
  [as, otherAs] = await Promise.all([startAuthorizationServer({ opaqueResources: [OPAQUE_RESOURCE] }), startAuthorizationServer()]);
});

afterAll(async () => {
  await Promise.all([as?.close(), otherAs?.close()]);
});

function verifier(jwks: Partial<JwksCachePolicy> = {}, introspector?: TokenIntrospector): AccessTokenVerifier {
  return new AccessTokenVerifier({ issuer: new IssuerMetadataSource(as.issuer), audiences: AUDIENCES, jwks, introspector });
}


function secondsFromNow(seconds: number): number {
  return Math.floor(Date.now() / 1000) + seconds;
}

describe('AccessTokenVerifier against a real authorization server', () => {
  it('accepts a JWT access token from the authorization code flow with PKCE, for this resource', async () => {
    const { accessToken } = await as.obtainAccessToken({ resource: RESOURCE, scope: AGENT_SCOPE });
    const claims = await verifier().verify(accessToken);
    expect(claims).toMatchObject({ iss: as.issuer, aud: RESOURCE, sub: 'alice', scope: AGENT_SCOPE, hyphae_tenant: 'acme' });
  });

  it('accepts the resource as URL serialisation writes it (trailing slash) and the /mcp endpoint as audience', async () => {
    for (const resource of [`${RESOURCE}/`, `${RESOURCE}/mcp`]) {
      const { accessToken } = await as.obtainAccessToken({ resource, scope: AGENT_SCOPE });
      expect((await verifier().verify(accessToken)).aud).toBe(resource);
    }
  });

  it('fetches the JWKS once for many tokens, not per request', async () => {
    const check = verifier();
    const before = as.jwksFetches;
    for (let i = 0; i < 20; i += 1) await check.verify(await as.mint(as.accessTokenClaims(RESOURCE)));
    expect(as.jwksFetches - before).toBe(1);
  });

  it('fetches the JWKS again for an unknown kid after the cooldown (a key rotation), and not during it', async () => {
    const eager = verifier({ cooldownMs: 0 });
    const patient = verifier({ cooldownMs: 60_000 });
    await eager.verify(await as.mint(as.accessTokenClaims(RESOURCE)));
    await patient.verify(await as.mint(as.accessTokenClaims(RESOURCE)));
    const signWithRotatedKey = await as.rotateKey();
    const rotated = await signWithRotatedKey(as.accessTokenClaims(RESOURCE));
    const before = as.jwksFetches;
    expect((await eager.verify(rotated)).sub).toBe('alice');
    expect(as.jwksFetches - before).toBe(1);
    expect((await rejectionOf(patient.verify(rotated))).message).toContain('a key the issuer does not publish');
    expect(as.jwksFetches - before).toBe(1);
  });

  it('takes typ at+jwt in any case, with or without application/; any typ only when told to', async () => {
    for (const typ of ['at+jwt', 'AT+JWT', 'application/at+jwt', 'Application/At+Jwt']) {
      expect((await verifier().verify(await as.mint(as.accessTokenClaims(RESOURCE), { typ }))).sub).toBe('alice');
    }
    const lax = new AccessTokenVerifier({ issuer: new IssuerMetadataSource(as.issuer), audiences: AUDIENCES, acceptAnyJwtTyp: true });
    for (const typ of ['JWT', null]) expect((await lax.verify(await as.mint(as.accessTokenClaims(RESOURCE), { typ }))).sub).toBe('alice');
  });

  it('allows a small clock skew on exp', async () => {
    const claims = await verifier().verify(await as.mint(as.accessTokenClaims(RESOURCE, { exp: secondsFromNow(-10) })));
    expect(claims.sub).toBe('alice');
  });

  describe('refuses', () => {
    it('a token for another audience (issued by the same server for another resource)', async () => {
      const { accessToken } = await as.obtainAccessToken({ resource: 'https://other.example.com', scope: AGENT_SCOPE });
      const error = await rejectionOf(verifier().verify(accessToken));
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect(error.message).toContain('(aud)');
    });

    it('a token of another authorization server, for this very resource', async () => {
      const { accessToken } = await otherAs.obtainAccessToken({ resource: RESOURCE, scope: AGENT_SCOPE });
      const error = await rejectionOf(verifier().verify(accessToken));
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect(error.message).toContain('a key the issuer does not publish');
    });

    it('a token signed with the issuer key but naming another issuer', async () => {
      const error = await rejectionOf(verifier().verify(await as.mint(as.accessTokenClaims(RESOURCE, { iss: otherAs.issuer }))));
      expect(error.message).toContain('(iss)');
    });

    it('an expired token', async () => {
      const error = await rejectionOf(verifier().verify(await as.mint(as.accessTokenClaims(RESOURCE, { exp: secondsFromNow(-120) }))));
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect(error.message).toContain('expired');
    });

    it('a token not valid yet', async () => {
      const error = await rejectionOf(verifier().verify(await as.mint(as.accessTokenClaims(RESOURCE, { nbf: secondsFromNow(120) }))));
      expect(error.message).toContain('(nbf)');
    });

    it('a token without exp', async () => {
      const error = await rejectionOf(verifier().verify(await as.mint(as.accessTokenClaims(RESOURCE, { exp: undefined }))));
      expect(error.message).toContain('claim exp');
    });

    it('a bad signature (another key under the issuer key id)', async () => {
      const kid = JSON.parse(Buffer.from((await as.mint(as.accessTokenClaims(RESOURCE))).split('.')[0] ?? '', 'base64url').toString()).kid as string;
      const error = await rejectionOf(verifier().verify(await as.mint(as.accessTokenClaims(RESOURCE), { signer: 'foreign', kid })));
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect(error.message).toContain('signature does not verify');
    });

    it('a token signed with a key the issuer never published', async () => {
      const error = await rejectionOf(verifier().verify(await as.mint(as.accessTokenClaims(RESOURCE), { signer: 'foreign' })));
      expect(error.message).toContain('a key the issuer does not publish');
    });

    it('alg: none', async () => {
      const error = await rejectionOf(verifier().verify(as.mintUnsigned(as.accessTokenClaims(RESOURCE))));
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect(error.message).toContain('signing algorithm not allowed');
    });

    it('HS256 signed with the issuer public key as the secret', async () => {
      const error = await rejectionOf(verifier().verify(await as.mintHmacWithPublicKey(as.accessTokenClaims(RESOURCE))));
      expect(error).toBeInstanceOf(InvalidTokenError);
      expect(error.message).toContain('signing algorithm not allowed');
    });

    it('an ID token of the issuer for this audience (typ JWT, a nonce), and a JWT without typ — not access tokens (RFC 9068)', async () => {
      const idToken = await as.mint(as.accessTokenClaims(RESOURCE, { nonce: 'n-0S6_WzA2Mj' }), { typ: 'JWT' });
      for (const token of [idToken, await as.mint(as.accessTokenClaims(RESOURCE), { typ: null })]) {
        const error = await rejectionOf(verifier().verify(token));
        expect(error).toBeInstanceOf(InvalidTokenError);
        expect(error.message).toContain('not an access token (typ is not at+jwt)');
      }
    });

    it('a sender-constrained (DPoP-bound) token presented as a bearer token', async () => {
      const error = await rejectionOf(verifier().verify(await as.mint(as.accessTokenClaims(RESOURCE, { cnf: { jkt: 'x' } }))));
      expect(error.message).toContain('cnf');
    });

    it('what is not a JWT, and an opaque token when introspection is not configured', async () => {
      expect((await rejectionOf(verifier().verify('a.b.c'))).message).toContain('malformed');
      expect((await rejectionOf(verifier().verify('x'.repeat(20_000)))).message).toContain('malformed');
      const { accessToken } = await as.obtainAccessToken({ resource: OPAQUE_RESOURCE, scope: AGENT_SCOPE });
      expect((await rejectionOf(verifier().verify(accessToken))).message).toContain('introspection is not configured');
    });
  });

  it('answers UNAVAILABLE, not 401, while the authorization server cannot be reached', async () => {
    const gone = await startAuthorizationServer();
    const token = await gone.mint(gone.accessTokenClaims(RESOURCE));
    await gone.close();
    const check = new AccessTokenVerifier({ issuer: new IssuerMetadataSource(gone.issuer), audiences: AUDIENCES });
    expect(await rejectionOf(check.verify(token))).toBeInstanceOf(UnavailableError);
  });
});

describe('introspection of opaque tokens (RFC 7662)', () => {
  function opaqueVerifier(cacheMs: number, calls = { count: 0 }, audiences = [OPAQUE_RESOURCE]): AccessTokenVerifier {
    const counting: typeof fetch = (input, init) => {
      calls.count += 1;
      return fetch(input, init);
    };
    const issuer = new IssuerMetadataSource(as.issuer);
    const introspector = new TokenIntrospector({ client: as.introspectionClient, issuer, cacheMs, fetch: counting });
    return new AccessTokenVerifier({ issuer, audiences, introspector });
  }

  it('accepts an active opaque token for this resource, asking the issuer once per cache period', async () => {
    const calls = { count: 0 };
    const check = opaqueVerifier(60_000, calls);
    const { accessToken } = await as.obtainAccessToken({ resource: OPAQUE_RESOURCE, scope: AGENT_SCOPE });
    expect(await check.verify(accessToken)).toMatchObject({ active: true, sub: 'alice', scope: AGENT_SCOPE, hyphae_tenant: 'acme' });
    await check.verify(accessToken);
    expect(calls.count).toBe(1);
  });

  it('refuses a token the issuer says is inactive (revoked)', async () => {
    const check = opaqueVerifier(0);
    const { accessToken } = await as.obtainAccessToken({ resource: OPAQUE_RESOURCE, scope: AGENT_SCOPE });
    expect((await check.verify(accessToken)).active).toBe(true);
    await as.revoke(accessToken);
    const error = await rejectionOf(check.verify(accessToken));
    expect(error).toBeInstanceOf(InvalidTokenError);
    expect(error.message).toContain('not active');
  });

  it('refuses an active opaque token issued for another resource', async () => {
    const { accessToken } = await as.obtainAccessToken({ resource: OPAQUE_RESOURCE, scope: AGENT_SCOPE });
    expect((await rejectionOf(opaqueVerifier(0, { count: 0 }, AUDIENCES).verify(accessToken))).message).toContain('(aud)');
  });
});
