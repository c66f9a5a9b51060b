/**
 * What people's tools (the web console) read besides what agents read, behind the facade's
 * authorisation: who a key is, the tenant's agents with their beacons, who told whom — recent and
 * live — and the quotas in use. An admin key sees its tenant within its project scope; any other
 * key sees only itself, its own beacons and its own inbox: exactly what its key can already read.
 */
import type { GossipAgent, GossipEvent, Identity, QuotaUsage } from '../../core/console-entities.js';
import { recentGossipInputSchema, watchGossipInputSchema } from '../../core/console-schemas.js';
import type { Diff } from '../../core/entities.js';
import { ForbiddenError, UnavailableError } from '../../core/errors.js';
import { hasExpired } from '../../core/expiry.js';
import { hasRole, type Principal } from '../../core/principal.js';
import { toDiff } from '../../mesh/diff-row.js';
import { agentsWithActiveKeys, liveBeaconsPerAgent, openSessionsPerAgent, recentDeliveries, tenantLiveBeacons } from '../../store/gossip-view-repository.js';
import { countTenantCells } from '../../store/quota-repository.js';
import { toBeacon } from '../facade/entity-mapping.js';
import { parseInput } from '../facade/input-validation.js';
import type { LiveSubscription, MemoryFacade } from '../memory-facade.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { beaconVisibleTo, diffVisibleTo } from '../facade/visibility.js';

/** Beacons one graph lists at most: the console draws agents, not an index of every interest. */
const MAX_GRAPH_BEACONS = 2_000;
/** Deliveries a gossip stream remembers to drop a republished one (the relay publishes at least once). */
const SEEN_DELIVERIES = 1_024;

export type ConsoleViewOperations = Pick<MemoryFacade, 'whoAmI' | 'gossipAgents' | 'recentGossip' | 'watchGossip' | 'quotaUsage'>;

/** Whose deliveries the principal may read: an admin any agent's (or all, undefined); anyone else only its own. */
function recipientFor(principal: Principal, requested: string | undefined): string | undefined {
  if (hasRole(principal, 'admin')) return requested;
  if (requested !== undefined && requested !== principal.agent) throw new ForbiddenError("another agent's deliveries need the admin role");
  return principal.agent;
}

export function consoleViewOperations(ctx: FacadeContext): ConsoleViewOperations {
  return {
    async whoAmI(principal): Promise<Identity> {
      return {
        tenant: principal.tenantId,
        agent: principal.agent,
        key_id: principal.keyId,
        roles: [...principal.roles],
        projects: [...principal.projects],
        default_project: principal.defaultProject,
        trust: principal.trust,
      };
    },

    async gossipAgents(principal): Promise<readonly GossipAgent[]> {
      const admin = hasRole(principal, 'admin');
      const beacons = (await tenantLiveBeacons(ctx.db, principal.tenantId, ctx.clock(), MAX_GRAPH_BEACONS)).filter(
        (beacon) => (admin || beacon.owner_agent === principal.agent) && beaconVisibleTo(principal, beacon),
      );
      const agents = new Set(admin ? await agentsWithActiveKeys(ctx.db, principal.tenantId) : [principal.agent]);
      for (const beacon of beacons) agents.add(beacon.owner_agent);
      return [...agents].sort().map((agent) => ({
        agent,
        beacons: beacons.filter((beacon) => beacon.owner_agent === agent).map(toBeacon),
      }));
    },

    async recentGossip(principal, raw): Promise<readonly GossipEvent[]> {
      const input = parseInput(recentGossipInputSchema, raw);
      const recipient = recipientFor(principal, input.recipient);
      const rows = await recentDeliveries(ctx.db, principal.tenantId, recipient ?? null, input.limit);
      const visible = diffVisibleTo(principal);
      return rows.filter(visible).map((row) => ({ recipient_agent: row.recipient_agent, diff: toDiff(row) }));
    },

    async watchGossip(principal, raw, listener): Promise<LiveSubscription> {
      const input = parseInput(watchGossipInputSchema, raw);
      const recipient = recipientFor(principal, input.recipient);
      const feed = ctx.diffFeed;
      if (feed === undefined) throw new UnavailableError('live push not configured');
      const visible = diffVisibleTo(principal);
      const seen = new Set<string>();
      const deliver = ({ recipientAgent, diff }: { readonly recipientAgent: string; readonly diff: Diff }): void => {
        if ((recipient !== undefined && recipientAgent !== recipient) || !visible(diff) || hasExpired(diff.expires_at, Date.now())) return;
        const id = `${recipientAgent}:${diff.diff_id}`;
        if (seen.has(id)) return;
        seen.add(id);
        if (seen.size > SEEN_DELIVERIES) seen.delete(seen.values().next().value as string);
        listener({ recipient_agent: recipientAgent, diff });
      };
      return ctx.streams.open(principal.keyId, () => feed.watchTenant(principal.tenantId, deliver), principal);
    },

    async quotaUsage(principal): Promise<readonly QuotaUsage[]> {
      const { config } = ctx;
      const [cells, beacons, sessions] = await Promise.all([
        countTenantCells(ctx.db, principal.tenantId, config.maxCellsPerTenant),
        liveBeaconsPerAgent(ctx.db, principal.tenantId, ctx.clock()),
        openSessionsPerAgent(ctx.db, principal.tenantId),
      ]);
      return [
        { quota: 'cells_per_tenant', scope: 'tenant', used: cells, limit: config.maxCellsPerTenant },
        ...beacons.map(({ agent, count }) => ({ quota: 'beacons_per_agent' as const, scope: `agent:${agent}`, used: count, limit: config.maxBeaconsPerAgent })),
        ...sessions.map(({ agent, count }) => ({ quota: 'open_sessions_per_agent' as const, scope: `agent:${agent}`, used: count, limit: config.maxOpenSessionsPerAgent })),
        { quota: 'live_streams_per_key', scope: 'this key', used: ctx.streams.openFor(principal.keyId), limit: config.maxStreamsPerKey },
        { quota: 'live_streams_per_process', scope: 'process', used: ctx.streams.openStreams, limit: config.maxStreamsPerProcess },
      ];
    },
  };
}
