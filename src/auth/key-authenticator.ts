/**
 * Resolves a clear API key to its principal. The key is hashed first and looked up by hash, so
 * no comparison ever runs on the secret itself (nothing to time). Principals are cached for a
 * short TTL so per-request auth costs a hash and a map lookup; a revocation takes effect on every
 * replica within that TTL (and at once on the replica that revoked).
 */
import { UnauthenticatedError } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import type { Queryable } from '../store/db.js';
import { findActiveKeyByHash, type KeyRow } from '../store/key-repository.js';
import { hashApiKey, looksLikeApiKey } from './api-key.js';
import { TtlCache } from './ttl-cache.js';

export const DEFAULT_AUTH_CACHE_TTL_MS = 5_000;
const AUTH_CACHE_ENTRIES = 1_000;

export interface KeyAuthenticatorOptions {
  readonly cacheTtlMs?: number;
  readonly now?: () => number;
}

export class KeyAuthenticator {
  private readonly cache: TtlCache<Principal>;

  constructor(
    private readonly db: Queryable,
    options: KeyAuthenticatorOptions = {},
  ) {
    this.cache = new TtlCache(AUTH_CACHE_ENTRIES, options.cacheTtlMs ?? DEFAULT_AUTH_CACHE_TTL_MS, options.now);
  }

  async authenticate(apiKey: string): Promise<Principal> {
    if (typeof apiKey !== 'string' || !looksLikeApiKey(apiKey)) throw new UnauthenticatedError();
    const hash = hashApiKey(apiKey);
    const cached = this.cache.get(hash);
    if (cached !== undefined) return cached;
    const row = await findActiveKeyByHash(this.db, hash);
    if (row === null) throw new UnauthenticatedError();
    const principal = toPrincipal(row);
    this.cache.set(hash, principal);
    return principal;
  }

  /** Drops a revoked key from this replica's cache at once. */
  forgetKey(keyId: string): void {
    this.cache.deleteWhere((principal) => principal.keyId === keyId);
  }
}

function toPrincipal(row: KeyRow): Principal {
  return {
    tenantId: row.tenant_id,
    agent: row.agent,
    keyId: row.key_id,
    roles: row.roles,
    projects: row.projects,
    defaultProject: row.default_project,
    trust: row.trust,
  };
}
