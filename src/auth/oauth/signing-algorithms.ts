/**
 * Which JWS algorithms an access token may be signed with: asymmetric ones only. `none` would
 * accept anything, and an HMAC algorithm would let whoever holds the issuer's public key forge
 * tokens with it; neither is ever on the list, whatever the issuer advertises.
 */
export const ASYMMETRIC_JWS_ALGORITHMS: readonly string[] = [
  'RS256', 'RS384', 'RS512',
  'PS256', 'PS384', 'PS512',
  'ES256', 'ES384', 'ES512',
  'Ed25519', 'EdDSA',
];

/**
 * The asymmetric algorithms the issuer advertises; all of them when it advertises none (the
 * metadata has no field for access tokens, so that is common and not a reason to refuse).
 */
export function allowedAlgorithms(advertised: readonly string[]): string[] {
  const allowed = ASYMMETRIC_JWS_ALGORITHMS.filter((alg) => advertised.includes(alg));
  return allowed.length > 0 ? allowed : [...ASYMMETRIC_JWS_ALGORITHMS];
}
