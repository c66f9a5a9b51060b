/**
 * A verified access token as a principal, just as a key becomes one: its identity from the token,
 * its trust the agent's as keys hold it (the highest of its unrevoked keys in the tenant; an agent
 * seen first through a token has the default), and a key id derived from issuer, tenant and agent
 * so per-key quotas and limits count one signed-in agent as one key. Like a key's, the principal
 * is cached briefly — by the token's SHA-256, never past its expiry — so a client repeating its
 * token costs a hash and a map lookup, not a signature check, per call; a refused token is not
 * cached.
 */
import { createHash } from 'node:crypto';
import type { OAuthConfig } from '../../core/oauth-config.js';
import { DEFAULT_TRUST, type Principal } from '../../core/principal.js';
import type { Queryable } from '../../store/db.js';
import { agentTrust } from '../../store/agent-trust-repository.js';
import { DEFAULT_AUTH_CACHE_TTL_MS } from '../key-authenticator.js';
import { TtlCache } from '../ttl-cache.js';
import { OAuthAuthenticator, type OAuthAuthenticatorOptions } from './oauth-authenticator.js';
import type { TokenIdentity } from './token-identity.js';

const CACHE_ENTRIES = 10_000;

export interface TokenPrincipalsOptions extends OAuthAuthenticatorOptions {
  /** How long a principal and an agent's trust are reused (default: the key cache's 5 s). */
  readonly cacheTtlMs?: number;
}

export class TokenPrincipals {
  private readonly tokens: OAuthAuthenticator;
  private readonly principals: TtlCache<Principal>;
  private readonly trusts: TtlCache<number>;
  private readonly now: () => number;

  constructor(
    private readonly db: Queryable,
    config: OAuthConfig,
    options: TokenPrincipalsOptions = {},
  ) {
    this.tokens = new OAuthAuthenticator(config, options);
    this.now = options.now ?? Date.now;
    const ttl = options.cacheTtlMs ?? DEFAULT_AUTH_CACHE_TTL_MS;
    this.principals = new TtlCache(CACHE_ENTRIES, ttl, this.now);
    this.trusts = new TtlCache(CACHE_ENTRIES, ttl, this.now);
  }

  async authenticate(token: string): Promise<Principal> {
    const digest = createHash('sha256').update(token, 'utf8').digest('base64url');
    const cached = this.principals.get(digest);
    if (cached !== undefined && (cached.expiresAt === undefined || cached.expiresAt > this.now())) return cached;
    const identity = await this.tokens.authenticate(token);
    const { issuer: _issuer, expiresAt, ...rest } = identity;
    const principal: Principal = {
      ...rest,
      keyId: tokenKeyId(identity),
      trust: await this.trustOf(identity.tenantId, identity.agent),
      ...(expiresAt === undefined ? {} : { expiresAt }),
    };
    this.principals.set(digest, principal);
    return principal;
  }

  private async trustOf(tenantId: string, agent: string): Promise<number> {
    const key = JSON.stringify([tenantId, agent]);
    const cached = this.trusts.get(key);
    if (cached !== undefined) return cached;
    const trust = (await agentTrust(this.db, tenantId, agent)) ?? DEFAULT_TRUST;
    this.trusts.set(key, trust);
    return trust;
  }
}

/** A UUID (version 8, RFC 9562) from the SHA-256 of issuer, tenant and agent: stable, and never a key's. */
export function tokenKeyId(identity: Pick<TokenIdentity, 'issuer' | 'tenantId' | 'agent'>): string {
  const bytes = createHash('sha256').update(JSON.stringify([identity.issuer, identity.tenantId, identity.agent])).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
