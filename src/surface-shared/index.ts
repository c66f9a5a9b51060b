/**
 * What the surfaces (mcp, http, grpc, a2a) share, so none imports another: how a caller's
 * credential is read and resolved, how a failed-authentication budget is kept per address, what an
 * OAuth client is told when refused and where it discovers sign-in, and how an SSE answer is
 * negotiated and a live stream (SSE or stdio) is held, paced and bounded.
 */
export {
  API_KEY_FORMS,
  API_KEY_HEADER,
  AUTHORIZATION_HEADER,
  MAX_API_KEY_CHARS,
  acceptsAccessTokens,
  apiKeyOf,
  authenticateCredential,
  credentialDigest,
  credentialOf,
  markAccessTokensAccepted,
  missingCredentialError,
} from './credentials.js';
export type { Credential } from './credentials.js';
export { BODY_LIMIT_SETTING, bodyTooLargeError, isBodyTooLarge } from './body-limit.js';
export { FailedAuthLimiter } from './failed-auth-limiter.js';
export type { FailedAuthLimiterOptions } from './failed-auth-limiter.js';
export { acceptsEventStream, mediaType } from './media-types.js';
export { OAuthChallenges, refusalOf, rememberRefusal, scopeRefusalOf, tokenRefusalReason } from './oauth-challenge.js';
export { PROTECTED_RESOURCE_PATHS, protectedResourceMetadata, resourceMetadataUrl } from '../auth/oauth/protected-resource.js';
export { LiveStream, LiveStreams, SSE_HEARTBEAT_MS, SSE_MAX_BUFFERED_BYTES, STALLED_CLIENT_MS } from './live-stream.js';
export type { LiveStreamOptions, LiveStreamsOptions, StreamOverflow, StreamSink } from './live-stream.js';
export { SSE_HEARTBEAT, responseSink, sseEvent, sseOpening, startSseStream, writeSseHead } from './sse-stream.js';
export { SYSTEM_CLOCK } from './stream-clock.js';
export type { StreamClock } from './stream-clock.js';
export { createSourceLinkKey } from './source-links.js';
export type { SourceLinkKey, SourceSlice } from './source-links.js';
