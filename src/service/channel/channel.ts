/**
 * What the Claude Code channel keeps in the database, behind the facade's authorisation: the
 * backlog a new session announces (the inbox above the drain cursor and the channel mark, only
 * diffs the key may read), the mark itself, and the trust of the authors whose memories are pushed
 * (read through a short cache: a burst of one author's stores costs one lookup).
 */
import { TtlCache } from '../../auth/ttl-cache.js';
import type { ChannelBacklog } from '../../core/entities.js';
import { canAccessProject } from '../../core/principal.js';
import { isAgentName } from '../../core/text-rules.js';
import { agentTrust } from '../../store/agent-trust-repository.js';
import { channelBacklog, raiseChannelMark } from '../../store/channel-mark-repository.js';
import type { MemoryFacade } from '../memory-facade.js';
import type { FacadeContext } from '../facade/facade-context.js';

/** Like a key's principal (key-authenticator.ts): a changed trust shows within 5 s. */
const TRUST_CACHE_TTL_MS = 5_000;
const TRUST_CACHE_ENTRIES = 10_000;

export type ChannelOperations = Pick<MemoryFacade, 'channelBacklog' | 'markChannelSettled' | 'authorTrust'>;

export function channelOperations(ctx: FacadeContext): ChannelOperations {
  const trusts = new TtlCache<{ readonly trust: number | undefined }>(TRUST_CACHE_ENTRIES, TRUST_CACHE_TTL_MS);
  return {
    async channelBacklog(principal): Promise<ChannelBacklog> {
      const rows = await channelBacklog(ctx.db, principal.tenantId, principal.agent);
      const groups = rows.groups
        .filter((group) => canAccessProject(principal, group.project))
        .map((group) => ({ cell_type: group.cell_type, source_agent: group.source_agent, count: group.count }));
      return { head_seq: rows.headSeq, groups };
    },

    async markChannelSettled(principal, seq): Promise<void> {
      if (!Number.isSafeInteger(seq) || seq <= 0) return;
      await raiseChannelMark(ctx.db, principal.tenantId, principal.agent, seq);
    },

    async authorTrust(principal, agent): Promise<number | undefined> {
      // Not an agent name (core/text-rules.ts): no agent holds it, so no trust.
      if (!isAgentName(agent)) return undefined;
      const key = `${principal.tenantId}\u0000${agent}`;
      const cached = trusts.get(key);
      if (cached !== undefined) return cached.trust;
      const trust = await agentTrust(ctx.db, principal.tenantId, agent);
      trusts.set(key, { trust });
      return trust;
    },
  };
}
