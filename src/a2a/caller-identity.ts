/**
 * Who an A2A call is from: the principal the facade resolved from the request's API key, carried
 * on the SDK's ServerCallContext as its `user`. Tasks and event buses are scoped by this owner,
 * so a task id of another agent or tenant is simply absent ("not found").
 */
import { ServerCallContext, type User } from '@a2a-js/sdk/server';
import type { Principal } from '../core/principal.js';

export class PrincipalUser implements User {
  constructor(readonly principal: Principal) {}

  get isAuthenticated(): boolean {
    return true;
  }

  /** Tenant and agent, unambiguous whatever characters either holds. */
  get userName(): string {
    return JSON.stringify([this.principal.tenantId, this.principal.agent]);
  }
}

/** The SDK's OwnerResolver: every store and bus lookup is keyed by it. */
export function ownerOf(context: ServerCallContext): string {
  const user = context.user;
  // Never reached through the routes (they authenticate first); a scope no caller can share.
  if (!(user instanceof PrincipalUser)) return '\u0000unauthenticated';
  return user.userName;
}

export function principalOf(context: ServerCallContext): Principal | undefined {
  const user = context.user;
  return user instanceof PrincipalUser ? user.principal : undefined;
}

export function callContextFor(principal: Principal, requestedVersion: string | undefined): ServerCallContext {
  return new ServerCallContext({
    user: new PrincipalUser(principal),
    tenant: principal.tenantId,
    ...(requestedVersion === undefined ? {} : { requestedVersion }),
  });
}
