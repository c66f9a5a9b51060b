/** From a bearer access token to who it speaks for: verify (JWT or introspection), then map its claims. */
import type { OAuthConfig } from '../../core/oauth-config.js';
import { AccessTokenVerifier, type JwksCachePolicy } from './access-token-verifier.js';
import { IssuerMetadataSource } from './issuer-metadata-source.js';
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
    return identityFromClaims(await this.verifier.verify(token), this.config);
  }
}
