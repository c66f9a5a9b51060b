/** Re-validation of every facade input with the shared zod schemas, and the byte limits of content and metadata. */
import type { z } from 'zod';
import { InvalidArgumentError, TooLargeError, type FieldIssue } from '../../core/errors.js';
import { MAX_CONTENT_BYTES, MAX_METADATA_BYTES, utf8Bytes } from '../../core/limits.js';
import { uuidSchema, type StoreInput } from '../../core/schemas.js';

/** Parses input with a strict schema; every failure names its field (unknown fields by name). */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const issues: FieldIssue[] = [];
  for (const issue of parsed.error.issues) {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) issues.push({ path: base === '' ? key : `${base}.${key}`, message: 'unknown field' });
    } else {
      issues.push({ path: base === '' ? '(root)' : base, message: issue.message });
    }
  }
  throw new InvalidArgumentError(`invalid arguments: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
}

/** A path or body id must be a UUID; a malformed one is invalid, not merely unknown. */
export function parseUuid(field: string, value: unknown): string {
  const parsed = uuidSchema.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(`${field} must be a UUID`, [{ path: field, message: 'Invalid UUID' }]);
  return parsed.data.toLowerCase();
}

export function checkStoreLimits(input: StoreInput): void {
  const contentBytes = utf8Bytes(input.content);
  if (contentBytes > MAX_CONTENT_BYTES) throw new TooLargeError('content', MAX_CONTENT_BYTES, contentBytes);
  if (input.metadata !== undefined) {
    const metadataBytes = utf8Bytes(JSON.stringify(input.metadata));
    if (metadataBytes > MAX_METADATA_BYTES) throw new TooLargeError('metadata', MAX_METADATA_BYTES, metadataBytes);
  }
}
