/**
 * Zod validation of REST requests (instead of fastify's ajv), so a bad request gets our
 * INVALID_ARGUMENT shape with one issue per field. Query strings carry text only: values whose
 * schema wants a number or boolean are converted first, guided by the schema's JSON Schema.
 */
import { z } from 'zod';
import { InvalidArgumentError, type FieldIssue } from '../../core/errors.js';

export type RequestPart = 'body' | 'query' | 'params';

function issuePath(part: RequestPart, path: readonly PropertyKey[]): string {
  const inner = path.map((key) => (typeof key === 'number' ? `[${key}]` : `.${String(key)}`)).join('');
  return `${part}${inner}`;
}

export function parseRequestPart<S extends z.ZodType>(schema: S, part: RequestPart, value: unknown): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issues: FieldIssue[] = result.error.issues.map((issue) => ({ path: issuePath(part, issue.path), message: issue.message }));
  throw new InvalidArgumentError(`invalid request ${part}`, issues);
}

type ScalarKind = 'integer' | 'number' | 'boolean';

/** Field name → the scalar kind its schema expects, for the fields a query string must convert. */
export function queryScalarKinds(schema: z.ZodType): ReadonlyMap<string, ScalarKind> {
  const json = z.toJSONSchema(schema, { io: 'input' }) as { properties?: Record<string, { type?: unknown }> };
  const kinds = new Map<string, ScalarKind>();
  for (const [name, property] of Object.entries(json.properties ?? {})) {
    if (property.type === 'integer' || property.type === 'number' || property.type === 'boolean') kinds.set(name, property.type);
  }
  return kinds;
}

const NUMERIC = /^-?\d+(\.\d+)?$/;

/** Converts the scalar fields of a parsed query string; anything unconvertible is left for the schema to refuse. */
export function coerceQuery(query: unknown, kinds: ReadonlyMap<string, ScalarKind>): unknown {
  if (query === null || typeof query !== 'object') return query;
  const converted: Record<string, unknown> = { ...(query as Record<string, unknown>) };
  for (const [name, kind] of kinds) {
    const value = converted[name];
    if (typeof value !== 'string') continue;
    if (kind === 'boolean' && (value === 'true' || value === 'false')) converted[name] = value === 'true';
    else if (kind !== 'boolean' && NUMERIC.test(value)) converted[name] = Number(value);
  }
  return converted;
}
