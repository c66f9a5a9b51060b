import { DEFAULT_CONFIG, type HyphaeConfig } from '../core/config.js';

/**
 * What the gRPC surface needs from the process configuration: the `requests` slice REST applies too
 * (its body limit is the largest request message), plus the gRPC surface's own bounds.
 */
export type GrpcConfig = HyphaeConfig['requests'] & {
  /** Concurrent streams one HTTP/2 connection may open. */
  readonly maxConcurrentStreams: number;
  /** A WatchDiffs stream whose unsent diffs exceed this is ended (the client resumes with after_seq). */
  readonly maxBufferedDiffs: number;
};

export const DEFAULT_GRPC_CONFIG: GrpcConfig = {
  ...DEFAULT_CONFIG.requests,
  maxConcurrentStreams: 100,
  maxBufferedDiffs: 1_000,
};

export function resolveGrpcConfig(overrides: Partial<GrpcConfig> = {}): GrpcConfig {
  return { ...DEFAULT_GRPC_CONFIG, ...overrides };
}
