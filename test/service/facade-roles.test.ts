/**
 * The roles table (src/service/facade/operation-roles.ts), walked once: for every operation, a
 * principal holding only the roles short of the one it needs is FORBIDDEN — before its input is
 * read, so an empty input answers FORBIDDEN, not INVALID_ARGUMENT.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Role } from '../../src/core/cell-types.js';
import type { Principal } from '../../src/core/principal.js';
import { OPERATION_ROLES } from '../../src/service/facade/operation-roles.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';
import { expectCode, freshTenant } from '../support/facade-expectations.js';

/** Every role below the one named: an admin may do everything, a writer may read. */
const SHORT_OF: Readonly<Record<Role, Role[]>> = { reader: [], writer: ['reader'], admin: ['writer', 'reader'] };

type AnyOperation = (principal: Principal, ...rest: unknown[]) => Promise<unknown>;

describe('the facade operation roles', () => {
  let rt: TestRuntime;

  beforeAll(async () => {
    rt = await createTestRuntime();
  });
  afterAll(async () => rt.close());

  it.each(Object.entries(OPERATION_ROLES))('%s refuses a principal without the %s role', async (name, role) => {
    const principal: Principal = {
      tenantId: freshTenant(),
      agent: 'short',
      keyId: randomUUID(),
      roles: SHORT_OF[role],
      projects: ['*'],
      defaultProject: 'default',
      trust: 0.5,
    };
    const operation = rt.facade[name as keyof typeof OPERATION_ROLES] as AnyOperation;
    await expectCode(operation.call(rt.facade, principal, undefined, undefined), 'FORBIDDEN');
  });
});
