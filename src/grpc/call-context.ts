/** What the call guard learns about a gRPC call and hands to the handlers: who calls, from where. */
import { createContextKey, type HandlerContext } from '@connectrpc/connect';
import type { Principal } from '../core/principal.js';
import { missingCredentialError } from '../surface-shared/index.js';

export const CLIENT_ADDRESS = createContextKey<string>('unknown', { description: 'remote address of the HTTP/2 connection' });
export const PRINCIPAL = createContextKey<Principal | undefined>(undefined, { description: 'the authenticated caller' });

/** The principal the guard authenticated; a handler reached without one is a wiring bug, refused as anonymous. */
export function principalOf(context: HandlerContext): Principal {
  const principal = context.values.get(PRINCIPAL);
  if (principal === undefined) throw missingCredentialError();
  return principal;
}
