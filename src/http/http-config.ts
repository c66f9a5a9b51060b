import { DEFAULT_CONFIG, type HyphaeConfig } from '../core/config.js';
import type { OAuthConfig } from '../core/oauth-config.js';

/**
 * What the HTTP surface needs from the process configuration: its `http` and `requests` slices
 * (names and meanings in src/core/config/server-settings.ts) and the resolved OAuth settings.
 */
export type HttpConfig = HyphaeConfig['http'] &
  HyphaeConfig['requests'] & {
    /** Serve as an OAuth protected resource (metadata, challenges); undefined: API keys only. */
    readonly oauth: OAuthConfig | undefined;
    /** How long one readiness check may take before it counts as failing. */
    readonly readinessTimeoutMs: number;
  };

const READINESS_TIMEOUT_MS = 2_000;

/** The HTTP surface's slice of the process configuration. */
export function httpConfigOf(config: HyphaeConfig): HttpConfig {
  return { ...config.http, ...config.requests, oauth: config.oauth, readinessTimeoutMs: READINESS_TIMEOUT_MS };
}

export const DEFAULT_HTTP_CONFIG: HttpConfig = httpConfigOf(DEFAULT_CONFIG);

export function resolveHttpConfig(overrides: Partial<HttpConfig> = {}): HttpConfig {
  return { ...DEFAULT_HTTP_CONFIG, ...overrides };
}
