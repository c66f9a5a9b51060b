/**
 * The facade's role check, asked before an operation's input is read: a surface that must refuse a
 * large body from its headers alone (docs/rest.md) asks here, with the operation's name, what the
 * facade itself will check first when it is called (facade/operation-roles.ts).
 */
import type { Principal } from '../../core/principal.js';
import { requireRole } from './authorization.js';
import { OPERATION_ROLES } from './operation-roles.js';

/** FORBIDDEN unless `principal` holds the role `operation` needs; an operation the facade does not have is refused too. */
export function authorizeOperation(principal: Principal, operation: string): void {
  if (!Object.hasOwn(OPERATION_ROLES, operation)) throw new TypeError(`no facade operation ${operation}`);
  requireRole(principal, OPERATION_ROLES[operation as keyof typeof OPERATION_ROLES]);
}
