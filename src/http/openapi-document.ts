/**
 * The OpenAPI 3.1 document, generated from the very zod schemas that validate each route
 * (z.toJSONSchema), never written by hand. Served at `GET /openapi.json`.
 */
import { z } from 'zod';
import { ERROR_SPECS, type ErrorCode } from '../core/errors.js';
import { API_KEY_HEADER } from '../surface-shared/index.js';
import { errorBodySchema } from './error-reply.js';
import type { EventStreamRoute } from './rest/event-stream-route.js';
import type { HttpMethod, RestRoute } from './rest/rest-route.js';

type JsonSchema = Record<string, unknown>;
type JsonObject = Record<string, unknown>;

/** An operation outside `/v1` (health, metrics, the document itself): no auth, no zod input. */
export interface PlainOperation {
  readonly method: HttpMethod;
  readonly url: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly responses: Readonly<Record<number, { readonly description: string; readonly schema?: z.ZodType; readonly contentType?: string }>>;
}

/**
 * An authenticated `/v1` operation whose request or response body is a stream rather than JSON
 * (the admin export and import): registered by hand, described here.
 */
export interface RawRestOperation {
  readonly method: HttpMethod;
  readonly url: string;
  readonly operationId: string;
  readonly summary: string;
  readonly tag: string;
  readonly query?: z.ZodType;
  readonly requestBody?: { readonly contentTypes: readonly string[]; readonly description: string };
  readonly success: { readonly status: 200; readonly description: string; readonly contentType: string; readonly schema?: z.ZodType };
  readonly errors: readonly ErrorCode[];
}

/** Codes every authenticated `/v1` route may answer. */
const COMMON_ERRORS: readonly ErrorCode[] = ['INVALID_ARGUMENT', 'UNAUTHENTICATED', 'FORBIDDEN', 'TOO_LARGE', 'RATE_LIMITED', 'INTERNAL', 'UNAVAILABLE'];

export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io }) as JsonSchema;
  return rest;
}

export function openApiPath(fastifyUrl: string): string {
  return fastifyUrl.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

function parametersOf(schema: z.ZodType | undefined, location: 'path' | 'query'): JsonObject[] {
  if (schema === undefined) return [];
  const json = jsonSchemaOf(schema, 'input');
  const properties = (json.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((json.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => {
    const { description, ...propertySchema } = property;
    return {
      name,
      in: location,
      required: location === 'path' || required.has(name),
      ...(typeof description === 'string' ? { description } : {}),
      schema: propertySchema,
    };
  });
}

function errorResponse(code: ErrorCode): JsonObject {
  return {
    description: code,
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    ...(code === 'RATE_LIMITED'
      ? { headers: { 'Retry-After': { description: 'Seconds to wait', schema: { type: 'integer', minimum: 1 } } } }
      : {}),
  };
}

function withErrors(responses: Record<string, JsonObject>, errors: readonly ErrorCode[]): Record<string, JsonObject> {
  for (const code of new Set<ErrorCode>([...COMMON_ERRORS, ...errors])) {
    const status = String(ERROR_SPECS[code].httpStatus);
    responses[status] ??= errorResponse(code);
  }
  return responses;
}

function streamOperation(route: EventStreamRoute): JsonObject {
  const responses = withErrors(
    {
      200: {
        description: `Server-sent events, each \`event: ${route.event.name}\` (${route.event.description}) with \`data:\` the JSON object below; comment lines keep the stream alive`,
        content: { 'text/event-stream': { schema: jsonSchemaOf(route.event.schema, 'output') } },
      },
    },
    route.errors,
  );
  return { operationId: route.operationId, summary: route.summary, tags: [route.tag], parameters: parametersOf(route.schemas.query, 'query'), responses };
}

function restOperation(route: RestRoute): JsonObject {
  const { success } = route;
  const responses = withErrors(
    {
      [String(success.status)]:
        success.schema === undefined
          ? { description: success.description }
          : { description: success.description, content: { 'application/json': { schema: jsonSchemaOf(success.schema, 'output') } } },
    },
    route.errors,
  );

  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [route.tag],
    parameters: [...parametersOf(route.schemas.params, 'path'), ...parametersOf(route.schemas.query, 'query')],
    ...(route.schemas.body === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            content: { 'application/json': { schema: jsonSchemaOf(route.schemas.body, 'input') } },
          },
        }),
    responses,
  };
}

function rawOperation(operation: RawRestOperation): JsonObject {
  const { success, requestBody } = operation;
  const stream = { type: 'string', description: 'JSON Lines' };
  const successSchema = success.schema === undefined ? stream : jsonSchemaOf(success.schema, 'output');
  return {
    operationId: operation.operationId,
    summary: operation.summary,
    tags: [operation.tag],
    parameters: parametersOf(operation.query, 'query'),
    ...(requestBody === undefined
      ? {}
      : {
          requestBody: {
            required: true,
            description: requestBody.description,
            content: Object.fromEntries(requestBody.contentTypes.map((type) => [type, { schema: { type: 'string' } }])),
          },
        }),
    responses: withErrors({ [String(success.status)]: { description: success.description, content: { [success.contentType]: { schema: successSchema } } } }, operation.errors),
  };
}

function plainOperation(operation: PlainOperation): JsonObject {
  const responses: Record<string, JsonObject> = {};
  for (const [status, response] of Object.entries(operation.responses)) {
    const contentType = response.contentType ?? 'application/json';
    responses[status] =
      response.schema === undefined
        ? { description: response.description, content: { [contentType]: { schema: { type: 'string' } } } }
        : { description: response.description, content: { [contentType]: { schema: jsonSchemaOf(response.schema, 'output') } } };
  }
  return { operationId: operation.operationId, summary: operation.summary, tags: [operation.tag], security: [], responses };
}

export interface OpenApiDocumentOptions {
  readonly version: string;
  readonly routes: readonly RestRoute[];
  readonly rawOperations?: readonly RawRestOperation[];
  readonly streamRoutes?: readonly EventStreamRoute[];
  readonly plainOperations: readonly PlainOperation[];
  /** OAuth is on: an access token in `Authorization: Bearer` is an alternative to the key. */
  readonly bearerTokens?: boolean;
}

export function buildOpenApiDocument(options: OpenApiDocumentOptions): JsonObject {
  const paths: Record<string, Record<string, JsonObject>> = {};
  const add = (method: HttpMethod, url: string, operation: JsonObject): void => {
    const path = openApiPath(url);
    paths[path] ??= {};
    paths[path][method.toLowerCase()] = operation;
  };
  for (const route of options.routes) add(route.method, route.url, restOperation(route));
  for (const operation of options.rawOperations ?? []) add(operation.method, operation.url, rawOperation(operation));
  for (const route of options.streamRoutes ?? []) add(route.method, route.url, streamOperation(route));
  for (const operation of options.plainOperations) add(operation.method, operation.url, plainOperation(operation));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Hyphae REST API',
      version: options.version,
      description: 'Shared memory for AI agents: full nodes over REST, on the same memory facade as MCP (`POST /mcp`).',
    },
    servers: [{ url: '/' }],
    security: options.bearerTokens === true ? [{ apiKey: [] }, { apiKeyBearer: [] }, { bearerToken: [] }] : [{ apiKey: [] }, { apiKeyBearer: [] }],
    tags: [...new Set([...options.routes, ...(options.streamRoutes ?? []), ...(options.rawOperations ?? []), ...options.plainOperations].map((o) => o.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: API_KEY_HEADER },
        apiKeyBearer: { type: 'http', scheme: 'bearer', description: 'The same API key (hy_…) as `Authorization: Bearer <key>`' },
        ...(options.bearerTokens === true ? { bearerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'An OAuth access token for this server (see /.well-known/oauth-protected-resource)' } } : {}),
      },
      schemas: { Error: jsonSchemaOf(errorBodySchema, 'output') },
    },
  };
}
