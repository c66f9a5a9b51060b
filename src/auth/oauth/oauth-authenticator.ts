/**
 * From a bearer access token to who it speaks for: verify (JWT or introspection), then map its
 * claims. An introspected token's identity also carries how to check it again: open streams hold
 * it (and so the token) and end when the issuer stops calling the token active.
 */
import type { OAuthConfig } from '../../core/oauth-config.js';
import { AccessTokenVerifier, type JwksCachePolicy } from './access-token-verifier.js';
import { IssuerMetadataSource } from './issuer-metadata-source.js';
import { InvalidTokenError } from './oauth-errors.js';
import { identityFromClaims, type TokenIdentity } from './token-identity.js';
import { TokenIntrospector } from './token-introspection.js';

export interface OAuthAuthenticatorOptions {
  readonly jwks?: Partial<JwksCachePolicy>;
  readonly introspectionCacheMs?: number;
  readonly now?: () => number;
}

export class OAuthAuthenticator {
  private readonly verifier: AccessTokenVerifier;

  constructor(
    private readonly config: OAuthConfig,
    options: OAuthAuthenticatorOptions = {},
  ) {
    const issuer = new IssuerMetadataSource(config.issuer, { now: options.now });
    const introspector =
      config.introspection === undefined
        ? undefined
        : new TokenIntrospector({ client: config.introspection, issuer, cacheMs: options.introspectionCacheMs, now: options.now });
    this.verifier = new AccessTokenVerifier({
      issuer,
      audiences: config.audiences,
      introspector,
      jwks: options.jwks,
      acceptAnyJwtTyp: config.acceptAnyJwtTyp,
      now: options.now,
    });
  }

  async authenticate(token: string): Promise<TokenIdentity> {
    const { claims, recheckAt } = await this.verifier.verifyToken(token);
    const identity = identityFromClaims(claims, this.config);
    if (recheckAt === undefined) return identity;
    // Introspected: valid only until its answer is due again, so a stream it opened asks again then and ends once it is revoked.
    return { ...identity, expiresAt: recheckAt, recheck: () => this.recheck(token) };
  }

  private async recheck(token: string): Promise<number> {
    const { expiresAt } = await this.authenticate(token);
    if (expiresAt === undefined) throw new InvalidTokenError('no longer introspected');
    return expiresAt;
  }
}
