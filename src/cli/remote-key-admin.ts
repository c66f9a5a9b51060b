/**
 * `hyphae keys … --remote URL`: the same key administration as the local command, done by a
 * running server's REST routes (`/v1/admin/keys`) with an admin key of its tenant, so keys are
 * minted while `hyphae serve` holds the data folder. A refusal is shown as the server worded it,
 * with what to change.
 */
import type { KeyAdministration } from '../auth/key-administration.js';
import type { ApiKeyInfo, CreatedApiKey } from '../core/entities.js';
import { ERROR_SPECS, HyphaeError, NotFoundError, UnavailableError, type ErrorCode } from '../core/errors.js';
import { identitySchema } from '../core/console-schemas.js';
import { apiKeyListSchema, createdApiKeySchema } from '../core/output-schemas.js';
import type { z } from 'zod';

/** What `hyphae keys` calls, locally (the database) or remotely (the server's routes). */
export type KeyAdministrationCalls = Pick<KeyAdministration, 'createKey' | 'listKeys' | 'revokeKey'>;

/** The server's base URL, whether given bare or as one of its endpoints (…/mcp, …/v1). */
export function serverBaseUrl(url: string): string {
  return url.replace(/\/+$/, '').replace(/\/(mcp|v1)$/, '');
}

function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === 'string' && Object.hasOwn(ERROR_SPECS, code);
}

/** What to change after a refusal, for the refusals a first try meets. */
function remedyFor(status: number): string {
  if (status === 401) return '; set HYPHAE_API_KEY (or --api-key) to an admin key of this server (the one its first start printed)';
  if (status === 403) return '; keys are administered with a key that has the admin role, within its own tenant';
  return '';
}

export function remoteKeyAdministration(url: string, apiKey: string): KeyAdministrationCalls {
  const base = serverBaseUrl(url);

  async function call<T>(method: string, path: string, schema: z.ZodType<T> | undefined, body?: unknown): Promise<T | undefined> {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method,
        headers: { authorization: `Bearer ${apiKey}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const reason = (error as { cause?: { code?: unknown } }).cause?.code;
      throw new UnavailableError(`could not reach ${base}${typeof reason === 'string' ? ` (${reason})` : ''}: is \`hyphae serve\` running there?`, { cause: error });
    }
    const text = await response.text();
    let payload: unknown;
    try {
      payload = text === '' ? undefined : JSON.parse(text);
    } catch {
      payload = undefined;
    }
    if (!response.ok) {
      const error = (payload as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
      const code = isErrorCode(error?.code) ? error.code : response.status >= 500 ? 'UNAVAILABLE' : 'INVALID_ARGUMENT';
      const message = typeof error?.message === 'string' ? error.message : `HTTP ${response.status}`;
      throw new HyphaeError(code, `${method} ${base}${path} answered ${response.status} ${code}: ${message}${remedyFor(response.status)}`);
    }
    if (schema === undefined) return undefined;
    const parsed = schema.safeParse(payload);
    if (!parsed.success) throw new UnavailableError(`${method} ${base}${path} answered ${response.status} with a body this version cannot read: is it a Hyphae server?`);
    return parsed.data;
  }

  const listKeys = async (tenant?: string): Promise<ApiKeyInfo[]> => {
    const listed = await call('GET', '/v1/admin/keys', apiKeyListSchema);
    return (listed?.keys ?? []).filter((key) => tenant === undefined || key.tenant === tenant);
  };

  return {
    async createKey(input): Promise<CreatedApiKey> {
      // The admin key's tenant unless --tenant names one (the server refuses any other).
      const tenant = (input as { tenant?: unknown }).tenant ?? (await call('GET', '/v1/me', identitySchema))?.tenant;
      const created = await call('POST', '/v1/admin/keys', createdApiKeySchema, { ...input, tenant });
      if (created === undefined) throw new UnavailableError(`POST ${base}/v1/admin/keys answered no key`);
      return created;
    },
    listKeys,
    async revokeKey(keyId, tenant): Promise<ApiKeyInfo> {
      // Looked up first: the route answers 204 with no body, and --tenant must name the key's tenant.
      const known = (await listKeys(tenant)).find((key) => key.key_id === keyId);
      if (known === undefined) throw new NotFoundError(tenant === undefined ? 'key' : `key of tenant "${tenant}"`, keyId);
      await call('DELETE', `/v1/admin/keys/${encodeURIComponent(keyId)}`, undefined);
      return known;
    },
  };
}
