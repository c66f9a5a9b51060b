import type { OAuthConfig } from '../core/oauth-config.js';

/** What the HTTP surface needs from the process configuration; the CLI fills it from HyphaeConfig. */
export interface HttpConfig {
  /** Host names (or `*.suffix` patterns) accepted in `Host` besides loopback; `*` accepts any. */
  readonly allowedHosts: readonly string[];
  /** Browser origins (`scheme://host[:port]`) allowed to call; CORS stays closed when empty. */
  readonly allowedOrigins: readonly string[];
  readonly bodyLimitBytes: number;
  /** Requests per `rateLimitWindowMs` per API key (per client IP when unauthenticated). */
  readonly rateLimitMax: number;
  readonly rateLimitWindowMs: number;
  /** Failed authentications (401) per `rateLimitWindowMs` per client address before it gets 429. */
  readonly failedAuthMax: number;
  /** Passed to fastify: none, a hop count, or a list of trusted proxy addresses/CIDRs — never every hop, whose left-most address the client writes. */
  readonly trustProxy: false | number | readonly string[];
  /** When set, `GET /metrics` requires `Authorization: Bearer <token>`. */
  readonly metricsBearerToken: string | undefined;
  /** How long one readiness check may take before it counts as failing. */
  readonly readinessTimeoutMs: number;
  /** Mount the A2A surface (agent card + JSON-RPC endpoint); off unless HYPHAE_A2A=1. */
  readonly a2a: boolean;
  /** Serve as an OAuth protected resource (metadata, challenges); undefined: API keys only. */
  readonly oauth: OAuthConfig | undefined;
}

export const DEFAULT_HTTP_CONFIG: HttpConfig = {
  allowedHosts: [],
  allowedOrigins: [],
  bodyLimitBytes: 256 * 1024,
  rateLimitMax: 600,
  rateLimitWindowMs: 60_000,
  failedAuthMax: 30,
  trustProxy: false,
  metricsBearerToken: undefined,
  readinessTimeoutMs: 2_000,
  a2a: false,
  oauth: undefined,
};

export function resolveHttpConfig(overrides: Partial<HttpConfig> = {}): HttpConfig {
  return { ...DEFAULT_HTTP_CONFIG, ...overrides };
}
