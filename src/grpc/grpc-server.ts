/**
 * The gRPC port of `hyphae serve`: Connect-RPC's Node adapter on an HTTP/2 cleartext (h2c) server,
 * answering gRPC, gRPC-Web and the Connect protocol for hyphae.v1.MemoryService, plus the standard
 * health and reflection services. close() drains: no new connections, GOAWAY to the open ones,
 * live streams end (the shutdown signal), in-flight calls finish, stragglers are cut after a grace.
 */
import { createContextValues } from '@connectrpc/connect';
import { connectNodeAdapter } from '@connectrpc/connect-node';
import { createServer, type Http2Session } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { RATE_LIMIT_WINDOW_MS } from '../core/config.js';
import type { ReadinessCheck } from '../core/readiness.js';
import { FailedAuthLimiter } from '../surface-shared/index.js';
import type { MemoryFacade } from '../service/memory-facade.js';
import { CLIENT_ADDRESS } from './call-context.js';
import { callGuard, type GrpcCallObserver } from './call-guard.js';
import { CallRateLimiter } from './call-rate-limiter.js';
import { file_grpc_health_v1_health, Health } from './gen/grpc/health/v1/health_pb.js';
import { file_grpc_reflection_v1_reflection, ServerReflection as ReflectionV1 } from './gen/grpc/reflection/v1/reflection_pb.js';
import { file_grpc_reflection_v1alpha_reflection, ServerReflection as ReflectionV1alpha } from './gen/grpc/reflection/v1alpha/reflection_pb.js';
import { file_hyphae_v1_memory, MemoryService } from './gen/hyphae/v1/memory_pb.js';
import type { GrpcConfig } from './grpc-config.js';
import { withDecodeFailuresAsInvalidArgument } from './decode-error-status.js';
import { healthService } from './health-service.js';
import { memoryService } from './memory-service.js';
import { createReflectionIndex } from './reflection-index.js';
import { reflectionServiceV1, reflectionServiceV1alpha } from './reflection-service.js';
import type { WatchDiffsMetrics } from './watch-diffs.js';


export interface GrpcServerDeps {
  readonly facade: MemoryFacade;
  readonly config: GrpcConfig;
  readonly readiness: readonly ReadinessCheck[];
  readonly metrics?: GrpcCallObserver & WatchDiffsMetrics;
  /** Shared with the HTTP surface, so guessing keys on both ports draws on one budget per address. */
  readonly failedAuth?: FailedAuthLimiter;
  readonly onServerFault?: (error: unknown) => void;
  /** How long close() waits for in-flight calls before cutting connections; default 10 s. */
  readonly drainTimeoutMs?: number;
}

export interface GrpcServer {
  /** The bound port (useful when listening on 0). */
  readonly port: number;
  /** `host:port`, as gRPC clients take it. */
  readonly address: string;
  close(): Promise<void>;
}

const READINESS_TIMEOUT_MS = 2_000;

async function allReady(probes: readonly ReadinessCheck[]): Promise<boolean> {
  const timeout = new Promise<never>((_resolve, reject) => setTimeout(() => reject(new Error('readiness timed out')), READINESS_TIMEOUT_MS).unref());
  try {
    await Promise.race([Promise.all(probes.map((probe) => probe.check())), timeout]);
    return true;
  } catch {
    return false;
  }
}

export async function startGrpcServer(deps: GrpcServerDeps, listen: { readonly host: string; readonly port: number }): Promise<GrpcServer> {
  const { config } = deps;
  const shutdown = new AbortController();
  const failedAuth = deps.failedAuth ?? new FailedAuthLimiter({ max: config.failedAuthPerMinute, windowMs: RATE_LIMIT_WINDOW_MS });
  const guard = callGuard({
    facade: deps.facade,
    failedAuth,
    rateLimiter: new CallRateLimiter({ max: config.rateLimitPerMinute, windowMs: RATE_LIMIT_WINDOW_MS }),
    ...(deps.metrics === undefined ? {} : { observer: deps.metrics }),
    ...(deps.onServerFault === undefined ? {} : { onServerFault: deps.onServerFault }),
  });
  const reflection = createReflectionIndex([file_hyphae_v1_memory, file_grpc_health_v1_health, file_grpc_reflection_v1_reflection, file_grpc_reflection_v1alpha_reflection]);
  const handler = connectNodeAdapter({
    readMaxBytes: config.bodyLimitBytes,
    shutdownSignal: shutdown.signal,
    contextValues: (request) => createContextValues().set(CLIENT_ADDRESS, request.socket.remoteAddress ?? 'unknown'),
    routes: (router) => {
      router.service(
        MemoryService,
        memoryService(deps.facade, { maxBufferedDiffs: config.maxBufferedDiffs, shutdown: shutdown.signal, ...(deps.metrics === undefined ? {} : { metrics: deps.metrics }) }),
        { interceptors: [guard] },
      );
      router.service(Health, healthService({ services: [MemoryService.typeName], ready: () => allReady(deps.readiness) }));
      router.service(ReflectionV1, reflectionServiceV1(reflection));
      router.service(ReflectionV1alpha, reflectionServiceV1alpha(reflection));
      router.handlers.splice(0, router.handlers.length, ...router.handlers.map(withDecodeFailuresAsInvalidArgument));
    },
  });
  const server = createServer({ settings: { maxConcurrentStreams: config.maxConcurrentStreams } }, handler);
  const sessions = new Set<Http2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const host = listen.host.includes(':') ? `[${listen.host}]` : listen.host;
  let closing: Promise<void> | undefined;
  return {
    port,
    address: `${host}:${port}`,
    close(): Promise<void> {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        shutdown.abort();
        for (const session of sessions) session.close();
        setTimeout(() => {
          for (const session of sessions) session.destroy();
        }, deps.drainTimeoutMs ?? 10_000).unref();
      });
      return closing;
    },
  };
}
