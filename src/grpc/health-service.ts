/**
 * The standard grpc.health.v1.Health service: SERVING while every readiness probe passes (the
 * database answers; NATS is connected when configured), NOT_SERVING otherwise. "" names the whole
 * server; a service this port does not serve is NOT_FOUND (Check) or SERVICE_UNKNOWN (Watch).
 * Watch sends the status at once and again whenever it changes, until the call ends.
 */
import { create } from '@bufbuild/protobuf';
import { Code, ConnectError, type ServiceImpl } from '@connectrpc/connect';
import { setTimeout as delay } from 'node:timers/promises';
import type { Health} from './gen/grpc/health/v1/health_pb.js';
import { HealthCheckResponseSchema, HealthCheckResponse_ServingStatus as Status } from './gen/grpc/health/v1/health_pb.js';

export interface HealthServiceOptions {
  /** Service names answered besides "" (the whole server). */
  readonly services: readonly string[];
  /** Resolves true when the process is ready to serve. */
  readonly ready: () => Promise<boolean>;
  /** How often Watch re-checks; default 5 s. */
  readonly watchIntervalMs?: number;
}

export function healthService(options: HealthServiceOptions): ServiceImpl<typeof Health> {
  const known = new Set(['', ...options.services]);
  const status = async (): Promise<Status> => ((await options.ready().catch(() => false)) ? Status.SERVING : Status.NOT_SERVING);
  return {
    async check(request) {
      if (!known.has(request.service)) throw new ConnectError(`unknown service ${request.service}`, Code.NotFound);
      return create(HealthCheckResponseSchema, { status: await status() });
    },
    async *watch(request, context) {
      if (!known.has(request.service)) {
        yield create(HealthCheckResponseSchema, { status: Status.SERVICE_UNKNOWN });
        return;
      }
      let last: Status | undefined;
      while (!context.signal.aborted) {
        const current = await status();
        if (current !== last) yield create(HealthCheckResponseSchema, { status: current });
        last = current;
        await delay(options.watchIntervalMs ?? 5_000, undefined, { signal: context.signal }).catch(() => undefined);
      }
    },
  };
}
