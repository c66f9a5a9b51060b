/**
 * What one /mcp request asks of the toolsets (docs/mcp.md, "Toolsets"): the `toolset` query
 * parameter (a comma list of hyphae, hydradb), else the server's HYPHAE_MCP_TOOLSETS; and, when
 * it is served the HydraDB tools, their connection from the X-HydraDB-* headers (else the server's
 * HYDRADB_DATABASE / HYDRADB_COLLECTION). The database must resolve (400) and be the credential's
 * tenant (403); an OAuth token names its tenant, so it resolves without the header.
 */
import type { FastifyRequest } from 'fastify';
import { toolsetList } from '../../core/config/toolset-settings.js';
import { isHyphaeError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { JsonRpcErrorObject } from '../protocol/json-rpc.js';
import { requireOwnDatabase } from '../features/hydradb/hydradb-scope.js';
import type { HydraConnection } from '../features/hydradb/hydradb-scope.js';
import type { ToolsetChoice } from '../features/toolsets.js';
import { codedError, headerValue } from './http-replies.js';

export const HYDRADB_API_KEY_HEADER = 'x-hydradb-api-key';
export const HYDRADB_DATABASE_HEADER = 'x-hydradb-database';
export const HYDRADB_COLLECTION_HEADER = 'x-hydradb-collection';

export interface Refusal {
  readonly status: number;
  readonly error: JsonRpcErrorObject;
}

/** The request's toolsets; a refusal for a `toolset` parameter naming none of them. */
export function requestedToolsets(request: FastifyRequest, server: ToolsetChoice): ToolsetChoice | Refusal {
  const query = request.query as Record<string, unknown> | undefined;
  const asked = query?.toolset;
  if (asked === undefined) return server;
  const parsed = toolsetList.safeParse(Array.isArray(asked) ? asked.join(',') : String(asked));
  if (!parsed.success) return { status: 400, error: codedError('INVALID_ARGUMENT', 'toolset takes a comma list of hyphae, hydradb') };
  return { ...server, toolsets: parsed.data };
}

/** The HydraDB connection of one request, or why it is refused. */
export function requestConnection(request: FastifyRequest, principal: Principal, byToken: boolean, server: HydraConnection): HydraConnection | Refusal {
  const database = headerValue(request, HYDRADB_DATABASE_HEADER) ?? server.database ?? (byToken ? principal.tenantId : undefined);
  if (database === undefined) {
    return { status: 400, error: codedError('INVALID_ARGUMENT', 'no database: send X-HydraDB-Database with your database (the tenant of your key)') };
  }
  try {
    requireOwnDatabase(principal, database);
  } catch (error) {
    return { status: 403, error: codedError('FORBIDDEN', isHyphaeError(error) ? error.message : 'database refused') };
  }
  const collection = headerValue(request, HYDRADB_COLLECTION_HEADER) ?? server.collection;
  return { database, ...(collection === undefined ? {} : { collection }) };
}

export function isRefusal(value: object): value is Refusal {
  return 'status' in value && 'error' in value;
}
