/** What the gRPC surface needs from the process configuration; `hyphae serve` fills it from HyphaeConfig. */
export interface GrpcConfig {
  /** Largest request message accepted, as REST's body limit. */
  readonly readMaxBytes: number;
  /** Calls per `rateLimitWindowMs` per API key, as REST's per-key limit. */
  readonly rateLimitMax: number;
  readonly rateLimitWindowMs: number;
  /** Failed authentications per `rateLimitWindowMs` per client address before calls are refused. */
  readonly failedAuthMax: number;
  /** Concurrent streams one HTTP/2 connection may open. */
  readonly maxConcurrentStreams: number;
  /** A WatchDiffs stream whose unsent diffs exceed this is ended (the client resumes with after_seq). */
  readonly maxBufferedDiffs: number;
}

export const DEFAULT_GRPC_CONFIG: GrpcConfig = {
  readMaxBytes: 256 * 1024,
  rateLimitMax: 600,
  rateLimitWindowMs: 60_000,
  failedAuthMax: 30,
  maxConcurrentStreams: 100,
  maxBufferedDiffs: 1_000,
};

export function resolveGrpcConfig(overrides: Partial<GrpcConfig> = {}): GrpcConfig {
  return { ...DEFAULT_GRPC_CONFIG, ...overrides };
}
