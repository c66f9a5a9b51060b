/**
 * A `/v1` route that answers a server-sent event stream, as data like the JSON routes: its query
 * schema, the schema of each event's data and how it opens the stream on the facade. The same
 * definition registers the fastify route and documents it in the OpenAPI document. Authentication
 * and validation come first and refuse with the usual JSON error; once the stream is open, each
 * event is one `event: <name>` frame, a comment keeps idle proxies from closing it, a client that
 * does not read is ended rather than buffered without bound, and the stream ends when the facade
 * ends it (the key was revoked) or the server closes.
 */
import type { FastifyInstance } from 'fastify';
import type { z } from 'zod';
import type { ErrorCode } from '../../core/errors.js';
import type { LiveSubscription, MemoryFacade } from '../../service/memory-facade.js';
import { LiveStreams, SSE_HEARTBEAT, sseEvent, sseOpening, startSseStream, SSE_HEARTBEAT_MS, SSE_MAX_BUFFERED_BYTES } from '../../surface-shared/index.js';
import { authenticateRequest } from '../request-authentication.js';
import { coerceQuery, parseRequestPart, queryScalarKinds } from './request-validation.js';
import type { RouteInput } from './rest-route.js';

export interface EventStreamRoute<Q extends z.ZodType = z.ZodType> {
  readonly method: 'GET';
  readonly url: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly schemas: { readonly query: Q };
  /** Every event of the stream: its SSE event name and the schema of its JSON data. */
  readonly event: { readonly name: string; readonly description: string; readonly schema: z.ZodType };
  /** Error codes this route can answer besides the ones every authenticated route can. */
  readonly errors: readonly ErrorCode[];
  open(facade: MemoryFacade, input: RouteInput<{ query: Q }>, send: (data: unknown) => void): Promise<LiveSubscription>;
}

/** Keeps each definition's `open` typed by its own query schema while routes share one list type. */
export function defineEventStreamRoute<Q extends z.ZodType>(route: EventStreamRoute<Q>): EventStreamRoute {
  return route as unknown as EventStreamRoute;
}

export interface EventStreamSettings {
  /** A comment line this often (default 15 s). */
  readonly heartbeatMs?: number;
  /** Unsent bytes beyond which a client that does not read is ended (default 1 MiB). */
  readonly maxBufferedBytes?: number;
}

/** Open streams, so a graceful close can end them. */
export interface EventStreams {
  closeAll(): void;
}

export function registerEventStreamRoutes(
  app: FastifyInstance,
  facade: MemoryFacade,
  routes: readonly EventStreamRoute[],
  settings: EventStreamSettings = {},
): EventStreams {
  const heartbeat = { everyMs: settings.heartbeatMs ?? SSE_HEARTBEAT_MS, frame: SSE_HEARTBEAT };
  const maxBufferedBytes = settings.maxBufferedBytes ?? SSE_MAX_BUFFERED_BYTES;
  const streams = new LiveStreams();
  for (const route of routes) {
    const queryKinds = queryScalarKinds(route.schemas.query);
    app.route({
      method: route.method,
      url: route.url,
      handler: async (request, reply) => {
        const principal = await authenticateRequest(facade, request);
        const query = parseRequestPart(route.schemas.query, 'query', coerceQuery(request.query, queryKinds));
        // Closed only once started, so `subscription` is set by then.
        const stream = streams.stream({ heartbeat, maxBufferedBytes, onClose: () => void subscription.close().catch(() => undefined) });
        const send = (data: unknown): void => stream.send(sseEvent(route.event.name, JSON.stringify(data)));
        // A refusal here (role, quota) is the usual JSON error: nothing was written yet.
        const subscription = await route.open(facade, { principal, params: undefined, query, body: undefined }, send);
        reply.hijack();
        if (reply.raw.destroyed || request.raw.destroyed) {
          await subscription.close();
          return;
        }
        void subscription.ended?.then(() => stream.close());
        startSseStream(reply, stream, sseOpening(2_000));
      },
    });
  }
  return { closeAll: (): void => streams.closeAll() };
}
