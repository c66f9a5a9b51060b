/** The MCP revisions negotiated by an `initialize` handshake, newest first (docs/mcp.md). */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const;

export type ProtocolVersion = (typeof SUPPORTED_PROTOCOL_VERSIONS)[number];

export const LATEST_PROTOCOL_VERSION: ProtocolVersion = '2025-11-25';

/**
 * The revision assumed when a client never said which one it speaks: an HTTP request without
 * `MCP-Protocol-Version`, or a stdio session before `initialize`. The MCP transport spec tells
 * servers to assume 2025-03-26 in that case.
 */
export const ASSUMED_PROTOCOL_VERSION: ProtocolVersion = '2025-03-26';

const SUPPORTED: ReadonlySet<string> = new Set(SUPPORTED_PROTOCOL_VERSIONS);

export function isSupportedProtocolVersion(value: unknown): value is ProtocolVersion {
  return typeof value === 'string' && SUPPORTED.has(value);
}

/** A supported requested revision is echoed; anything else, or none, gets the newest. */
export function negotiateProtocolVersion(requested: unknown): ProtocolVersion {
  return isSupportedProtocolVersion(requested) ? requested : LATEST_PROTOCOL_VERSION;
}

/** From 2025-11-25 on, arguments that fail their schema are a tool result the model can read. */
export function reportsSchemaErrorsAsToolResults(version: ProtocolVersion): boolean {
  return version === '2025-11-25';
}

/** Revisions are dates, so their order is the order of their text. */
function atLeast(version: ProtocolVersion, revision: ProtocolVersion): boolean {
  return version >= revision;
}

/** `resource_link` content blocks, `title` and `lastModified` arrived with 2025-06-18. */
export function supportsResourceLinks(version: ProtocolVersion): boolean {
  return atLeast(version, '2025-06-18');
}

/**
 * The stateless revision (2026-07-28): no initialize, no session; every request names its
 * revision in `params._meta` (protocol/stateless-meta.ts, server/stateless-methods.ts). The
 * handshake revisions above keep their `initialize`.
 */
export const STATELESS_PROTOCOL_VERSIONS = ['2026-07-28'] as const;

export type StatelessProtocolVersion = (typeof STATELESS_PROTOCOL_VERSIONS)[number];

/** Every revision this server speaks, newest first: `server/discover` and -32022 list these. */
export const ADVERTISED_PROTOCOL_VERSIONS: readonly string[] = [...STATELESS_PROTOCOL_VERSIONS, ...SUPPORTED_PROTOCOL_VERSIONS];

const STATELESS: ReadonlySet<string> = new Set(STATELESS_PROTOCOL_VERSIONS);

export function isStatelessProtocolVersion(value: unknown): value is StatelessProtocolVersion {
  return typeof value === 'string' && STATELESS.has(value);
}

/**
 * What a stateless request's tool results and resource descriptors look like, in handshake terms:
 * the 2025-11-25 shapes (schema failures as tool results, resource_link, title, lastModified).
 */
export const STATELESS_CONTENT_VERSION: ProtocolVersion = '2025-11-25';
