/** The facade's key administration: an admin key administers its own tenant's keys; a revoked key stops at once here, within the auth cache TTL elsewhere. */
import type { ApiKeyInfo, CreatedApiKey } from '../../core/entities.js';
import { ForbiddenError } from '../../core/errors.js';
import { createKeyInputSchema } from '../../core/schemas.js';
import { parseInput, parseUuid } from '../input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';
import type { FacadeContext } from './facade-context.js';

export type KeyOperations = Pick<MemoryFacade, 'createKey' | 'listKeys' | 'revokeKey'>;

export function keyOperations(ctx: FacadeContext): KeyOperations {
  return {
    async createKey(principal, raw): Promise<CreatedApiKey> {
      const input = parseInput(createKeyInputSchema, raw);
      if (input.tenant !== principal.tenantId) throw new ForbiddenError('an admin key administers its own tenant only');
      return ctx.keyAdmin.createKey(input);
    },

    async listKeys(principal): Promise<readonly ApiKeyInfo[]> {
      return ctx.keyAdmin.listKeys(principal.tenantId);
    },

    async revokeKey(principal, keyId): Promise<void> {
      const id = parseUuid('key_id', keyId);
      await ctx.keyAdmin.revokeKey(id, principal.tenantId);
      ctx.authenticator.forgetKey(id);
      // Its open streams end now here; other replicas end theirs at their next revocation check.
      await ctx.streams.closeKey(id);
    },
  };
}
