/** Rules every accepted access token meets, whether it came as a JWT or through introspection. */
import { InvalidTokenError } from './oauth-errors.js';

/** How far `exp` and `nbf` may be off between the issuer's clock and ours. */
export const CLOCK_SKEW_SECONDS = 30;

/** A token's claims once its issuer, audience, lifetime and signature (or introspection) have been checked. */
export type VerifiedClaims = Readonly<Record<string, unknown>>;

/** A DPoP- or mTLS-bound token (`cnf`) needs a proof this server does not check: not usable as a bearer token. */
export function refuseSenderConstrained(claims: VerifiedClaims): VerifiedClaims {
  if (claims.cnf !== undefined) throw new InvalidTokenError('sender-constrained tokens (cnf) are not accepted');
  return claims;
}
