/**
 * The facade's key administration. An admin administers the keys of its own tenant that lie within
 * its own reach — projects, roles and trust (core/key-authority.ts; docs/security.md, "Who may
 * administer which keys"); a key beyond it is refused to mint and is, to list, revoke and rotate,
 * as if it did not exist. A revoked key stops at once here, within the auth cache TTL elsewhere.
 */
import type { ApiKeyInfo, CreatedApiKey } from '../../core/entities.js';
import { ForbiddenError } from '../../core/errors.js';
import { mintRefusal, withinAuthority, type MintRefusal } from '../../core/key-authority.js';
import type { Principal } from '../../core/principal.js';
import { createKeyInputSchema, type CreateKeyInput } from '../../core/schemas.js';
import { parseInput, parseUuid } from '../facade/input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';
import type { FacadeContext } from '../facade/facade-context.js';

export type KeyOperations = Pick<MemoryFacade, 'createKey' | 'listKeys' | 'revokeKey' | 'rotateKey'>;

const REFUSALS: Readonly<Record<MintRefusal, string>> = {
  projects: 'the key would reach projects beyond your own',
  roles: 'the key would hold a role beyond your own',
  trust: 'the key would have more trust than you have',
  agent_keys: 'the agent holds keys beyond your own reach',
  agent_trust: "the key would raise the agent's trust, which only a tenant-wide admin may do",
};

export function keyOperations(ctx: FacadeContext): KeyOperations {
  return {
    async createKey(principal, raw): Promise<CreatedApiKey> {
      const input = parseInput(createKeyInputSchema, raw);
      if (input.tenant !== principal.tenantId) throw new ForbiddenError('an admin key administers its own tenant only');
      return ctx.keyAdmin.createKey(input, (key, agentKeys, agentKnown) => admitMint(principal, key, agentKeys, agentKnown));
    },

    async listKeys(principal): Promise<readonly ApiKeyInfo[]> {
      return (await ctx.keyAdmin.listKeys(principal.tenantId)).filter((key) => withinAuthority(principal, key));
    },

    async revokeKey(principal, keyId): Promise<void> {
      const id = parseUuid('key_id', keyId);
      await ctx.keyAdmin.revokeKey(id, principal.tenantId, (key) => withinAuthority(principal, key));
      await endKey(ctx, id);
    },

    async rotateKey(principal, keyId): Promise<CreatedApiKey> {
      const id = parseUuid('key_id', keyId);
      const { created } = await ctx.keyAdmin.rotateKey(id, principal.tenantId, {
        revoke: (key) => withinAuthority(principal, key),
        // The replacement takes over the agent's identity like any mint: the same rule decides.
        mint: (key, agentKeys, agentKnown) => admitMint(principal, key, agentKeys, agentKnown),
      });
      await endKey(ctx, id);
      return created;
    },
  };
}

/** A revoked key stops at once on this replica; its open streams end now here, and on other replicas at their next revocation check. */
async function endKey(ctx: FacadeContext, keyId: string): Promise<void> {
  ctx.authenticator.forgetKey(keyId);
  await ctx.streams.closeKey(keyId);
}

function admitMint(principal: Principal, key: CreateKeyInput, agentKeys: readonly ApiKeyInfo[], agentKnown: boolean): void {
  const refusal = mintRefusal(principal, key, agentKeys, agentKnown);
  if (refusal !== null) throw new ForbiddenError(REFUSALS[refusal], { details: { exceeds: refusal } });
}
