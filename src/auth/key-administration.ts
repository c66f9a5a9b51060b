/**
 * Key administration with direct database access, for the local operator: the `hyphae keys`
 * CLI and the first-start bootstrap. It is not tenant-scoped — the facade's admin methods are,
 * and call into it with their own tenant.
 */
import { randomUUID } from 'node:crypto';
import type { ApiKeyInfo, CreatedApiKey } from '../core/entities.js';
import { InvalidArgumentError, NotFoundError } from '../core/errors.js';
import { ALL_PROJECTS } from '../core/principal.js';
import { createKeyInputSchema, uuidSchema, type CreateKeyInput } from '../core/schemas.js';
import type { Db, Queryable } from '../store/db.js';
import { countKeys, insertKey, listKeys, lockKeyBootstrap, revokeKey, type KeyRow } from '../store/key-repository.js';
import { displayPrefix, generateApiKey, hashApiKey, looksLikeApiKey } from './api-key.js';

const BOOTSTRAP_TENANT = 'default';
const BOOTSTRAP_AGENT = 'admin';
export const DEFAULT_PROJECT = 'default';

export interface KeyAdministration {
  createKey(input: CreateKeyInput | Record<string, unknown>): Promise<CreatedApiKey>;
  /** Every tenant's keys when tenant is omitted. */
  listKeys(tenant?: string): Promise<ApiKeyInfo[]>;
  /** Revokes a key (within `tenant` when given); NOT_FOUND when it does not exist there. */
  revokeKey(keyId: string, tenant?: string): Promise<ApiKeyInfo>;
  /**
   * On a database with no keys at all, mints an admin key for tenant `default` (or installs
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
    async createKey(raw): Promise<CreatedApiKey> {
      const input = parseCreateKey(raw);
      return mint(db, input, generateApiKey());
    },
    async listKeys(tenant): Promise<ApiKeyInfo[]> {
      return (await listKeys(db, tenant ?? null)).map(toKeyInfo);
    },
    async revokeKey(keyId, tenant): Promise<ApiKeyInfo> {
      if (!uuidSchema.safeParse(keyId).success) throw new InvalidArgumentError('key_id must be a UUID', [{ path: 'key_id', message: 'Invalid UUID' }]);
      const row = await revokeKey(db, keyId, tenant ?? null);
      if (row === null) throw new NotFoundError('key', keyId);
      return toKeyInfo(row);
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
        const input = parseCreateKey({ tenant: BOOTSTRAP_TENANT, agent: BOOTSTRAP_AGENT, roles: ['admin'], projects: [ALL_PROJECTS] });
        return mint(tx, input, presetKey ?? generateApiKey());
      });
    },
  };
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
