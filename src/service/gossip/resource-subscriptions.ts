/** The facade's MCP resource subscriptions, kept per MCP session in the database so any replica can serve them. */
import { resourceSubscriptionInputSchema } from '../../core/schemas.js';
import { deleteSubscription, sessionSubscriptions, upsertSubscription } from '../../store/resource-subscription-repository.js';
import { parseInput } from '../facade/input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { visibleCell } from '../facade/visibility.js';

export type ResourceSubscriptionOperations = Pick<MemoryFacade, 'subscribeResource' | 'unsubscribeResource' | 'resourceSubscriptions'>;

export function resourceSubscriptionOperations(ctx: FacadeContext): ResourceSubscriptionOperations {
  return {
    async subscribeResource(principal, raw): Promise<void> {
      const input = parseInput(resourceSubscriptionInputSchema, raw);
      if (input.resource.startsWith('cell:')) await visibleCell(ctx.db, principal, input.resource.slice('cell:'.length));
      await upsertSubscription(ctx.db, principal.tenantId, principal.agent, input.session, input.resource);
    },

    async unsubscribeResource(principal, raw): Promise<void> {
      const input = parseInput(resourceSubscriptionInputSchema, raw);
      await deleteSubscription(ctx.db, principal.tenantId, principal.agent, input.session, input.resource);
    },

    async resourceSubscriptions(principal, session): Promise<readonly string[]> {
      const input = parseInput(resourceSubscriptionInputSchema, { session, resource: 'inbox' });
      return sessionSubscriptions(ctx.db, principal.tenantId, principal.agent, input.session);
    },
  };
}
