/**
 * Key administration with direct database access, for the local operator: the `hyphae keys`
 * CLI and the first-start bootstrap. It is not tenant-scoped — the facade's admin methods are,
 * and call into it with their own tenant.
 */
import { randomUUID } from 'node:crypto';
import type { ApiKeyInfo, CreatedApiKey } from '../core/entities.js';
import { ConflictError, InvalidArgumentError, NotFoundError } from '../core/errors.js';
import { ALL_PROJECTS } from '../core/principal.js';
import { createKeyInputSchema, uuidSchema, type CreateKeyInput } from '../core/schemas.js';
import type { Db, Queryable } from '../store/db.js';
import { tenantAgents } from '../store/agent-trust-repository.js';
import {
  activeAgentKeys,
  countKeys,
  findKeyForUpdate,
  insertKey,
  listKeys,
  lockAgentKeys,
  lockKeyBootstrap,
  revokeKey,
  type KeyRow,
} from '../store/key-repository.js';
import { displayPrefix, generateApiKey, hashApiKey, looksLikeApiKey } from './api-key.js';

const BOOTSTRAP_TENANT = 'default';
const BOOTSTRAP_AGENT = 'admin';
export const DEFAULT_PROJECT = 'default';

/**
 * Decides a mint on the unrevoked keys its agent holds when it commits, and whether the tenant
 * knows the agent at all (a key, revoked or not, or an inbox); throws to refuse it.
 */
export type MintAdmission = (input: CreateKeyInput, agentKeys: readonly ApiKeyInfo[], agentKnown: boolean) => void;

/** Decides whether the caller may revoke this key of its tenant; false reads as NOT_FOUND. */
export type RevokeAdmission = (key: ApiKeyInfo) => boolean;

/** A rotation is a revocation of the key and a mint of its replacement: both must be admitted. */
export interface RotateAdmission {
  readonly revoke: RevokeAdmission;
  readonly mint: MintAdmission;
}

export interface KeyAdministration {
  /** Mints a key; with `admit`, only once it admits the mint (the agent's keys cannot change meanwhile). */
  createKey(input: CreateKeyInput | Record<string, unknown>, admit?: MintAdmission): Promise<CreatedApiKey>;
  /** Every tenant's keys when tenant is omitted. */
  listKeys(tenant?: string): Promise<ApiKeyInfo[]>;
  /** Revokes a key (within `tenant` when given); NOT_FOUND when it does not exist there, or `admit` refuses it. */
  revokeKey(keyId: string, tenant?: string, admit?: RevokeAdmission): Promise<ApiKeyInfo>;
  /**
   * Mints a key with this key's tenant, agent, roles, projects, default project and trust and
   * revokes this one, in one transaction. NOT_FOUND as revokeKey; CONFLICT for a revoked key.
   */
  rotateKey(keyId: string, tenant?: string, admit?: RotateAdmission): Promise<{ readonly created: CreatedApiKey; readonly revoked: ApiKeyInfo }>;
  /**
   * On a database with no keys at all, mints a tenant-wide admin key of trust 1 for tenant `default` (or installs
   * `presetKey`, e.g. from HYPHAE_BOOTSTRAP_ADMIN_KEY) and returns it; otherwise null.
   * Serialised by an advisory lock so two replicas starting together mint one key.
   */
  bootstrapAdminKey(presetKey?: string): Promise<CreatedApiKey | null>;
}

export function createKeyAdministration(db: Db): KeyAdministration {
  const mint = async (q: Queryable, input: CreateKeyInput, clearKey: string): Promise<CreatedApiKey> => {
    const row = await insertKey(q, {
      keyId: randomUUID(),
      tenantId: input.tenant,
      agent: input.agent,
      roles: input.roles,
      projects: input.projects,
      defaultProject: resolveDefaultProject(input),
      trust: input.trust,
      keyHashHex: hashApiKey(clearKey),
      keyPrefix: displayPrefix(clearKey),
    });
    return { ...toKeyInfo(row), key: clearKey };
  };
  return {
    async createKey(raw, admit): Promise<CreatedApiKey> {
      const input = parseCreateKey(raw);
      return db.transaction(async (tx) => {
        await lockAgentKeys(tx, input.tenant, input.agent);
        if (admit !== undefined) {
          const agentKeys = (await activeAgentKeys(tx, input.tenant, input.agent)).map(toKeyInfo);
          admit(input, agentKeys, agentKeys.length > 0 || (await tenantAgents(tx, input.tenant, [input.agent])).has(input.agent));
        }
        return mint(tx, input, generateApiKey());
      });
    },
    async listKeys(tenant): Promise<ApiKeyInfo[]> {
      return (await listKeys(db, tenant ?? null)).map(toKeyInfo);
    },
    async revokeKey(keyId, tenant, admit): Promise<ApiKeyInfo> {
      requireUuid(keyId);
      return db.transaction(async (tx) => {
        const found = await findKeyForUpdate(tx, keyId, tenant ?? null);
        // A key beyond the caller reads exactly as one that does not exist: no existence oracle.
        if (found === null || (admit !== undefined && !admit(toKeyInfo(found)))) throw new NotFoundError('key', keyId);
        const row = await revokeKey(tx, keyId, tenant ?? null);
        if (row === null) throw new NotFoundError('key', keyId);
        return toKeyInfo(row);
      });
    },
    async rotateKey(keyId, tenant, admit): Promise<{ created: CreatedApiKey; revoked: ApiKeyInfo }> {
      requireUuid(keyId);
      return db.transaction(async (tx) => {
        const found = await findKeyForUpdate(tx, keyId, tenant ?? null);
        if (found === null || (admit !== undefined && !admit.revoke(toKeyInfo(found)))) throw new NotFoundError('key', keyId);
        if (found.revoked_at !== null) throw new ConflictError(`key ${keyId} is revoked; a revoked key is not rotated`);
        const input = parseCreateKey({
          tenant: found.tenant_id,
          agent: found.agent,
          roles: found.roles,
          projects: found.projects,
          default_project: found.default_project,
          trust: found.trust,
        });
        await lockAgentKeys(tx, input.tenant, input.agent);
        // The key being rotated is the agent's own, unrevoked: the agent is known.
        if (admit !== undefined) admit.mint(input, (await activeAgentKeys(tx, input.tenant, input.agent)).map(toKeyInfo), true);
        const created = await mint(tx, input, generateApiKey());
        const revoked = await revokeKey(tx, keyId, found.tenant_id);
        if (revoked === null) throw new NotFoundError('key', keyId);
        return { created, revoked: toKeyInfo(revoked) };
      });
    },
    async bootstrapAdminKey(presetKey): Promise<CreatedApiKey | null> {
      if (presetKey !== undefined && !looksLikeApiKey(presetKey)) {
        throw new InvalidArgumentError('the bootstrap admin key must start with "hy_" and be 16–256 characters', [
          { path: 'HYPHAE_BOOTSTRAP_ADMIN_KEY', message: 'must start with "hy_"' },
        ]);
      }
      return db.transaction(async (tx) => {
        await lockKeyBootstrap(tx);
        if ((await countKeys(tx)) > 0) return null;
        // The tenant's root: every key minted through the API stays within its reach, trust included.
        const input = parseCreateKey({ tenant: BOOTSTRAP_TENANT, agent: BOOTSTRAP_AGENT, roles: ['admin'], projects: [ALL_PROJECTS], trust: 1 });
        return mint(tx, input, presetKey ?? generateApiKey());
      });
    },
  };
}

function requireUuid(keyId: string): void {
  if (!uuidSchema.safeParse(keyId).success) throw new InvalidArgumentError('key_id must be a UUID', [{ path: 'key_id', message: 'Invalid UUID' }]);
}

function parseCreateKey(raw: unknown): CreateKeyInput {
  const parsed = createKeyInputSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => ({ path: issue.path.join('.') || '(root)', message: issue.message }));
    throw new InvalidArgumentError(`invalid key request: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
  }
  const input = parsed.data;
  if (input.default_project !== undefined && !input.projects.includes(ALL_PROJECTS) && !input.projects.includes(input.default_project)) {
    throw new InvalidArgumentError('default_project must be one of projects', [{ path: 'default_project', message: 'not within projects' }]);
  }
  return input;
}

/** The explicit default, else the first named project, else `default` for an all-projects key. */
function resolveDefaultProject(input: CreateKeyInput): string {
  if (input.default_project !== undefined) return input.default_project;
  return input.projects.find((p) => p !== ALL_PROJECTS) ?? DEFAULT_PROJECT;
}

function toKeyInfo(row: KeyRow): ApiKeyInfo {
  return {
    key_id: row.key_id,
    tenant: row.tenant_id,
    agent: row.agent,
    roles: row.roles,
    projects: row.projects,
    default_project: row.default_project,
    trust: row.trust,
    key_prefix: row.key_prefix,
    created_at: row.created_at,
    revoked_at: row.revoked_at,
  };
}
