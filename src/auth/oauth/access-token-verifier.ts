/**
 * Checks a bearer access token locally: a JWT signed by the issuer (its JWKS, fetched from the URL
 * its metadata names, cached by jose and fetched again only for an unknown `kid`, after a cooldown,
 * or when older than its max age — never per request), with this server as audience, unexpired
 * (a small clock skew allowed), typed `at+jwt` (RFC 9068: an ID token of the same issuer and
 * audience is not an access token) and an asymmetric algorithm the issuer advertises. An opaque token
 * goes to RFC 7662 introspection when that is configured. The token itself goes nowhere else.
 */
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, type RemoteJWKSet } from 'jose';
import { UnavailableError } from '../../core/errors.js';
import type { IssuerMetadataSource } from './issuer-metadata-source.js';
import { InvalidTokenError } from './oauth-errors.js';
import { allowedAlgorithms } from './signing-algorithms.js';
import { CLOCK_SKEW_SECONDS, refuseSenderConstrained, type VerifiedClaims } from './token-claim-rules.js';
import { acceptIntrospectedToken, type TokenIntrospector } from './token-introspection.js';

/** Far above any real access token; a longer header value is refused unread. */
export const MAX_ACCESS_TOKEN_CHARS = 16 * 1024;

export interface JwksCachePolicy {
  /** After a fetch, how long an unknown `kid` waits before the JWKS is fetched again. */
  readonly cooldownMs: number;
  /** How long fetched keys are used before they are fetched again. */
  readonly maxAgeMs: number;
  readonly timeoutMs: number;
}

export const DEFAULT_JWKS_CACHE_POLICY: JwksCachePolicy = { cooldownMs: 30_000, maxAgeMs: 10 * 60_000, timeoutMs: 5_000 };

export interface AccessTokenVerifierOptions {
  readonly issuer: IssuerMetadataSource;
  /** The `aud` values accepted; a token must carry at least one. */
  readonly audiences: readonly string[];
  /** Absent: opaque tokens are refused. */
  readonly introspector?: TokenIntrospector;
  readonly jwks?: Partial<JwksCachePolicy>;
  /** Accept any JWT `typ`, for providers that do not send `at+jwt` (HYPHAE_OAUTH_ACCEPT_JWT_TYP). */
  readonly acceptAnyJwtTyp?: boolean;
  readonly now?: () => number;
}

/** RFC 9068's media type of a JWT access token; jose compares it case-insensitively, with or without `application/`. */
const ACCESS_TOKEN_TYP = 'at+jwt';

/** A token's verified claims; for an introspected token, also when its answer is due again (a revocation shows then). */
export interface VerifiedToken {
  readonly claims: VerifiedClaims;
  readonly recheckAt?: number;
}

const JWS_COMPACT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export class AccessTokenVerifier {
  private keys: { readonly jwksUri: string; readonly resolve: RemoteJWKSet } | undefined;

  constructor(private readonly options: AccessTokenVerifierOptions) {}

  async verify(token: string): Promise<VerifiedClaims> {
    return (await this.verifyToken(token)).claims;
  }

  async verifyToken(token: string): Promise<VerifiedToken> {
    if (token.length === 0 || token.length > MAX_ACCESS_TOKEN_CHARS) throw new InvalidTokenError('malformed');
    if (!JWS_COMPACT.test(token)) {
      const introspector = this.options.introspector;
      if (introspector === undefined) throw new InvalidTokenError('not a JWT, and introspection is not configured');
      const { answer, until } = await introspector.introspect(token);
      return { claims: acceptIntrospectedToken(answer, this.claimRules()), recheckAt: until };
    }
    return { claims: await this.verifyJwt(token) };
  }

  private async verifyJwt(token: string): Promise<VerifiedClaims> {
    const metadata = await this.options.issuer.get();
    try {
      const { payload } = await jwtVerify(token, this.keysAt(metadata.jwksUri), {
        issuer: metadata.issuer,
        audience: [...this.options.audiences],
        algorithms: allowedAlgorithms(metadata.signingAlgorithms),
        clockTolerance: CLOCK_SKEW_SECONDS,
        requiredClaims: ['exp'],
        ...(this.options.acceptAnyJwtTyp === true ? {} : { typ: ACCESS_TOKEN_TYP }),
        ...(this.options.now === undefined ? {} : { currentDate: new Date(this.options.now()) }),
      });
      return refuseSenderConstrained(payload);
    } catch (error) {
      throw toVerificationError(error);
    }
  }

  private claimRules(): { issuer: string; audiences: readonly string[]; now: number } {
    return { issuer: this.options.issuer.issuer, audiences: this.options.audiences, now: (this.options.now ?? Date.now)() };
  }

  private keysAt(jwksUri: string): RemoteJWKSet {
    if (this.keys?.jwksUri !== jwksUri) {
      const policy = { ...DEFAULT_JWKS_CACHE_POLICY, ...this.options.jwks };
      const resolve = createRemoteJWKSet(new URL(jwksUri), {
        cooldownDuration: policy.cooldownMs,
        cacheMaxAge: policy.maxAgeMs,
        timeoutDuration: policy.timeoutMs,
      });
      this.keys = { jwksUri, resolve };
    }
    return this.keys.resolve;
  }
}

function toVerificationError(error: unknown): Error {
  if (error instanceof InvalidTokenError || error instanceof UnavailableError) return error;
  if (error instanceof joseErrors.JWTExpired) return new InvalidTokenError('expired');
  if (error instanceof joseErrors.JWTClaimValidationFailed) return new InvalidTokenError(claimFailure(error.claim));
  if (error instanceof joseErrors.JOSEAlgNotAllowed) return new InvalidTokenError('signing algorithm not allowed');
  if (error instanceof joseErrors.JWSSignatureVerificationFailed) return new InvalidTokenError('signature does not verify');
  if (error instanceof joseErrors.JWKSNoMatchingKey) return new InvalidTokenError('signed with a key the issuer does not publish');
  if (error instanceof joseErrors.JWKSMultipleMatchingKeys) return new InvalidTokenError('its key is ambiguous in the issuer keys');
  if (error instanceof joseErrors.JWSInvalid || error instanceof joseErrors.JWTInvalid || error instanceof joseErrors.JOSENotSupported) {
    return new InvalidTokenError('malformed');
  }
  // The JWKS could not be fetched or parsed: the issuer's fault or the network's, not the caller's.
  return new UnavailableError('the authorization server keys could not be fetched', { cause: error, retryAfterSeconds: 10 });
}

function claimFailure(claim: string): string {
  if (claim === 'aud') return 'not issued for this server (aud)';
  if (claim === 'iss') return 'issued by another issuer (iss)';
  if (claim === 'nbf') return 'not valid yet (nbf)';
  if (claim === 'typ') return 'not an access token (typ is not at+jwt)';
  return `claim ${claim} is missing or invalid`;
}
