/** Small helpers shared by the facade tests. */
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import type { ErrorCode } from '../../src/core/errors.js';
import { HyphaeError, InvalidArgumentError } from '../../src/core/errors.js';

/** A tenant name no other test uses, so tests can share one database. */
export function freshTenant(label = 't'): string {
  return `${label}-${randomUUID().slice(0, 8)}`;
}

export async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<HyphaeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `expected ${code}`).toBeInstanceOf(HyphaeError);
  expect((error as HyphaeError).code).toBe(code);
  return error as HyphaeError;
}

/** Expects INVALID_ARGUMENT naming `field` among its issues. */
export async function expectInvalidField(promise: Promise<unknown>, field: string): Promise<void> {
  const error = await expectCode(promise, 'INVALID_ARGUMENT');
  expect(error).toBeInstanceOf(InvalidArgumentError);
  expect((error as InvalidArgumentError).issues.map((i) => i.path)).toContain(field);
}

export const MISSING_ID = '00000000-0000-4000-8000-000000000000';

/** How a call was refused — code, message and details — with `id` replaced, so refusals of different ids compare whole. */
export async function refusalShape(promise: Promise<unknown>, id: string): Promise<unknown> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(HyphaeError);
  const { code, message, details } = error as HyphaeError;
  return JSON.parse(JSON.stringify({ code, message, details }).replaceAll(id, '<id>'));
}
