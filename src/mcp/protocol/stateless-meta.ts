/**
 * The per-request metadata of the stateless revision (MCP 2026-07-28): a request is of this
 * revision when its `params._meta` carries `io.modelcontextprotocol/protocolVersion`; it then also names the client's
 * capabilities (required) and may name the client and a log level. Nothing is remembered between
 * requests: each one is read on its own.
 */
import type { JsonRpcErrorObject } from './json-rpc.js';
import { RPC_INVALID_PARAMS, isPlainObject } from './json-rpc.js';
import type { StatelessProtocolVersion } from './protocol-version.js';
import { ADVERTISED_PROTOCOL_VERSIONS, isStatelessProtocolVersion, isSupportedProtocolVersion } from './protocol-version.js';

export const META_PROTOCOL_VERSION = 'io.modelcontextprotocol/protocolVersion';
export const META_CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
export const META_CLIENT_INFO = 'io.modelcontextprotocol/clientInfo';
export const META_LOG_LEVEL = 'io.modelcontextprotocol/logLevel';
export const META_SERVER_INFO = 'io.modelcontextprotocol/serverInfo';
export const META_SUBSCRIPTION_ID = 'io.modelcontextprotocol/subscriptionId';

/** Error codes the revision defines (its reserved range -32020…-32099) that this server sends; it never needs -32021 (a missing client capability). */
export const RPC_HEADER_MISMATCH = -32020;
export const RPC_UNSUPPORTED_PROTOCOL_VERSION = -32022;

const LOG_LEVELS: ReadonlySet<string> = new Set(['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency']);
const MAX_ECHOED_VERSION = 64;

export interface StatelessRequestMeta {
  readonly protocolVersion: StatelessProtocolVersion;
  readonly clientCapabilities: Readonly<Record<string, unknown>>;
  readonly clientInfo?: { readonly name: string; readonly version: string };
  /** Accepted and validated; this server sends no notifications/message, so nothing reads it. */
  readonly logLevel?: string;
}

/** A refusal of this revision: the JSON-RPC error and the HTTP status Streamable HTTP gives it. */
export interface StatelessRejection {
  readonly error: JsonRpcErrorObject;
  readonly httpStatus: number;
}

export type StatelessMetaCheck = { readonly ok: true; readonly meta: StatelessRequestMeta } | ({ readonly ok: false } & StatelessRejection);

/** Whether a request's params declare the stateless revision (the protocolVersion key is present, whatever its value). */
export function declaresStatelessMeta(params: unknown): boolean {
  return isPlainObject(params) && isPlainObject(params._meta) && Object.hasOwn(params._meta, META_PROTOCOL_VERSION);
}

/** The version a stateless request names, if it names one as text. */
export function declaredVersionOf(params: unknown): string | undefined {
  if (!isPlainObject(params) || !isPlainObject(params._meta)) return undefined;
  const version = params._meta[META_PROTOCOL_VERSION];
  return typeof version === 'string' ? version : undefined;
}

export function unsupportedProtocolVersion(requested: string): StatelessRejection {
  const handshake = isSupportedProtocolVersion(requested);
  return {
    httpStatus: 400,
    error: {
      code: RPC_UNSUPPORTED_PROTOCOL_VERSION,
      message: handshake
        ? `Unsupported protocol version: ${requested} is served after an initialize handshake, not per request`
        : 'Unsupported protocol version',
      data: { supported: ADVERTISED_PROTOCOL_VERSIONS, requested: requested.slice(0, MAX_ECHOED_VERSION) },
    },
  };
}

function malformed(message: string): { ok: false } & StatelessRejection {
  return { ok: false, httpStatus: 400, error: { code: RPC_INVALID_PARAMS, message: `Invalid params: ${message}` } };
}

function isImplementation(value: unknown): value is { name: string; version: string } {
  return isPlainObject(value) && typeof value.name === 'string' && typeof value.version === 'string';
}

/** Reads and checks the `_meta` of a request that declared the stateless revision. */
export function readStatelessMeta(params: unknown): StatelessMetaCheck {
  if (!isPlainObject(params) || !isPlainObject(params._meta)) return malformed('_meta must be an object');
  const meta = params._meta;
  const version = meta[META_PROTOCOL_VERSION];
  if (typeof version !== 'string') return malformed(`_meta["${META_PROTOCOL_VERSION}"] must be a protocol version string`);
  if (!isStatelessProtocolVersion(version)) return { ok: false, ...unsupportedProtocolVersion(version) };
  const capabilities = meta[META_CLIENT_CAPABILITIES];
  if (!isPlainObject(capabilities)) return malformed(`_meta["${META_CLIENT_CAPABILITIES}"] is required and must be an object`);
  const clientInfo = meta[META_CLIENT_INFO];
  if (clientInfo !== undefined && !isImplementation(clientInfo)) {
    return malformed(`_meta["${META_CLIENT_INFO}"] must be an object with string name and version`);
  }
  const logLevel = meta[META_LOG_LEVEL];
  if (logLevel !== undefined && (typeof logLevel !== 'string' || !LOG_LEVELS.has(logLevel))) {
    return malformed(`_meta["${META_LOG_LEVEL}"] must be one of ${[...LOG_LEVELS].join(', ')}`);
  }
  return {
    ok: true,
    meta: {
      protocolVersion: version,
      clientCapabilities: capabilities,
      ...(clientInfo === undefined ? {} : { clientInfo: { name: clientInfo.name, version: clientInfo.version } }),
      ...(logLevel === undefined ? {} : { logLevel }),
    },
  };
}
