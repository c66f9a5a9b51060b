/**
 * A REST route as data: its zod request schemas, success response schema and handler. The same
 * definition registers the fastify route and generates its OpenAPI operation, so validation and
 * documentation cannot drift.
 */
import type { z } from 'zod';
import type { ErrorCode } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import type { MemoryFacade } from '../../service/memory-facade.js';

export type HttpMethod = 'GET' | 'POST' | 'DELETE';

export interface RouteSchemas {
  readonly params?: z.ZodType;
  readonly query?: z.ZodType;
  readonly body?: z.ZodType;
}

type Parsed<S> = S extends z.ZodType ? z.output<S> : undefined;

export interface RouteInput<S extends RouteSchemas> {
  readonly principal: Principal;
  readonly params: Parsed<S['params']>;
  readonly query: Parsed<S['query']>;
  readonly body: Parsed<S['body']>;
}

export interface RouteSuccess {
  readonly status: 200 | 201 | 204;
  readonly description: string;
  /** Absent for 204. */
  readonly schema?: z.ZodType;
}

export interface RouteResult {
  readonly status: 200 | 201 | 204;
  readonly payload?: unknown;
}

export interface RestRoute<S extends RouteSchemas = RouteSchemas> {
  readonly method: HttpMethod;
  /** fastify pattern, e.g. `/v1/cells/:id`; OpenAPI gets `/v1/cells/{id}`. */
  readonly url: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly schemas: S;
  readonly success: RouteSuccess;
  /** A body limit of its own, above the server's JSON limit (source ingestion); absent: the server's. */
  readonly bodyLimitBytes?: number;
  /** Error codes this route can answer besides the ones every authenticated route can. */
  readonly errors: readonly ErrorCode[];
  /** The source slice route: a signed `link` in its query stands in for a key, for exactly the slice it names (surface-shared/source-links.ts). */
  readonly acceptsSourceLink?: true;
  handle(facade: MemoryFacade, input: RouteInput<S>): Promise<RouteResult>;
}

/** Keeps each definition's handler typed by its own schemas while routes share one list type. */
export function defineRoute<S extends RouteSchemas>(route: RestRoute<S>): RestRoute {
  return route as unknown as RestRoute;
}
