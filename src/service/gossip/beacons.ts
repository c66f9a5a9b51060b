/** The facade's beacons (standing interests): place one within the agent's quota, list and delete its own. */
import { randomUUID } from 'node:crypto';
import type { Beacon, Page } from '../../core/entities.js';
import { ConflictError, InvalidArgumentError, NotFoundError } from '../../core/errors.js';
import { listBeaconsInputSchema, placeBeaconInputSchema } from '../../core/schemas.js';
import { countLiveBeacons, deleteOwnBeacon, findOwnBeacon, insertBeacon, listOwnBeacons, lockOwnerBeacons } from '../../store/beacon-repository.js';
import { requireProject } from '../facade/authorization.js';
import { toBeacon } from '../facade/entity-mapping.js';
import { parseInput, parseUuid } from '../facade/input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';
import { decodeCursor, pageOf } from '../facade/page-cursor.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { beaconVisibleTo, visibleScene } from '../facade/visibility.js';

export type BeaconOperations = Pick<MemoryFacade, 'placeBeacon' | 'listBeacons' | 'deleteBeacon'>;

export function beaconOperations(ctx: FacadeContext): BeaconOperations {
  const { config } = ctx;
  return {
    async placeBeacon(principal, raw): Promise<Beacon> {
      const input = parseInput(placeBeaconInputSchema, raw);
      const threshold = input.threshold ?? config.defaultBeaconThreshold;
      if (threshold < config.minBeaconThreshold) {
        throw new InvalidArgumentError(`threshold must be at least ${config.minBeaconThreshold}`, [
          { path: 'threshold', message: `below the server minimum ${config.minBeaconThreshold}` },
        ]);
      }
      if (input.project !== undefined) requireProject(principal, input.project);
      if (input.scene_id !== undefined) await visibleScene(ctx.db, principal, input.scene_id);
      const embedding = await ctx.embed(input.text);
      const now = ctx.clock();
      const row = await ctx.db.transaction(async (tx) => {
        await lockOwnerBeacons(tx, principal.tenantId, principal.agent);
        if ((await countLiveBeacons(tx, principal.tenantId, principal.agent, now)) >= config.maxBeaconsPerAgent) {
          throw new ConflictError(
            `this agent already holds ${config.maxBeaconsPerAgent} live beacons, the limit; delete one or let one expire first`,
            { details: { quota: 'beacons_per_agent', limit: config.maxBeaconsPerAgent } },
          );
        }
        ctx.gossip.beaconPlaced(principal.tenantId);
        return insertBeacon(tx, {
          beaconId: randomUUID(),
          tenantId: principal.tenantId,
          ownerAgent: principal.agent,
          ownerProjects: principal.projects,
          project: input.project ?? null,
          text: input.text,
          embedding,
          threshold,
          cellTypes: input.cell_types ?? null,
          sceneId: input.scene_id ?? null,
          includeOwn: input.include_own,
          expiresAt: input.ttl_seconds === undefined ? null : new Date(now.getTime() + input.ttl_seconds * 1000),
          now,
        });
      });
      ctx.beaconsChanged(principal.tenantId, principal.agent);
      return toBeacon(row);
    },

    async listBeacons(principal, raw): Promise<Page<Beacon>> {
      const input = parseInput(listBeaconsInputSchema, raw);
      const rows = await listOwnBeacons(ctx.db, principal.tenantId, principal.agent, ctx.clock(), decodeCursor(input.cursor), input.limit);
      const page = pageOf(rows, input.limit, (r) => ({ createdAt: r.created_at, id: r.beacon_id }));
      return { items: page.rows.filter((row) => beaconVisibleTo(principal, row)).map(toBeacon), next_cursor: page.next };
    },

    async deleteBeacon(principal, beaconId): Promise<void> {
      const id = parseUuid('beacon_id', beaconId);
      await ctx.db.transaction(async (tx) => {
        const own = await findOwnBeacon(tx, principal.tenantId, principal.agent, id);
        if (own === null || !beaconVisibleTo(principal, own) || !(await deleteOwnBeacon(tx, principal.tenantId, principal.agent, id))) {
          throw new NotFoundError('beacon', id);
        }
      });
      ctx.beaconsChanged(principal.tenantId, principal.agent);
    },
  };
}
