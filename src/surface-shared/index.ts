/**
 * What the surfaces (mcp, http, grpc, a2a) share, so none imports another: how a caller's
 * credential is read, how a failed-authentication budget is kept per address, and how an SSE
 * answer is negotiated and begun.
 */
export { API_KEY_HEADER, MAX_API_KEY_CHARS, apiKeyDigest, apiKeyOf } from './credentials.js';
export { FailedAuthLimiter } from './failed-auth-limiter.js';
export type { FailedAuthLimiterOptions } from './failed-auth-limiter.js';
export { acceptsEventStream, mediaType } from './media-types.js';
export { writeSseHead } from './sse-head.js';
