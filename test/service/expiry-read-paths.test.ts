/**
 * Expiry (docs/expiry.md): a cell stored with `ttl_seconds: 2` is returned by every read path
 * before, and by none once 2 s have passed — with no sweep run, its row still in the table. Every
 * facade operation is named here either as a read path checked below or as one that returns no
 * stored cell, so a new operation fails this file until it is classified.
 */
import { describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import type { FacadeOperations } from '../../src/service/facade/operation-roles.js';
import { OPERATION_ROLES } from '../../src/service/facade/operation-roles.js';
import { freshTenant } from '../support/facade-expectations.js';
import { TEST_DRIVERS } from '../support/test-runtime.js';
import { waitFor } from '../support/wait-for.js';
import { onEveryDatabase, type ExpiryCore } from './expiry-cores.js';
import { expiryWorld, seenBy, READ_PATHS, type ExpiryWorld } from './expiry-world.js';

/** Operations that return no stored cell text: writes, keys, beacons, sessions, identity, live pushes (tested in their own files). */
const NOT_CELL_READS = [
  'store', 'deleteCell', 'forgetCells', 'purgeProject', 'openSession', 'closeSession', 'consolidateScene', 'placeBeacon', 'listBeacons',
  'deleteBeacon', 'subscribeResource', 'unsubscribeResource', 'resourceSubscriptions', 'subscribeDiffs', 'channelBacklog', 'markChannelSettled',
  'authorTrust', 'createKey', 'listKeys', 'revokeKey', 'rotateKey', 'importTenant', 'whoAmI', 'gossipAgents', 'watchGossip', 'quotaUsage',
  'ingestSource', 'deleteSource', 'addRelations', 'deleteRelation', 'submitFeedback',
  'eraseAgentMemories', 'eraseTenant', 'listErasureReceipts', 'feedbackQuality',
] as const satisfies readonly (keyof FacadeOperations)[];

/** Reads of sources: test/service/expiry-sources.test.ts checks each of them with an expiring source. */
const SOURCE_READS = ['readSource', 'listSources', 'sourceStatus', 'sourceChunks', 'numberedSources', 'sourceSubgraph'] as const satisfies readonly (keyof FacadeOperations)[];

describe('the read paths an expiry must reach', () => {
  it('names every facade operation: a read path checked here or with sources, or one that returns no stored cell', () => {
    const named = new Set<string>([...Object.keys(READ_PATHS).map((path) => path.split(':')[0] ?? path), ...NOT_CELL_READS, ...SOURCE_READS]);
    expect(Object.keys(OPERATION_ROLES).filter((operation) => !named.has(operation))).toEqual([]);
  });
});

async function readPathsForgetAnExpiredCell(core: ExpiryCore): Promise<void> {
  const tenant = freshTenant();
  const admin = await core.principal(tenant, 'author', ['admin', 'writer', 'reader']);
  const reader = async (agent: string): Promise<Principal> => core.principal(tenant, agent);
  // The same world twice: one that lives an hour shows every path returns an expiring cell (on a
  // loaded machine the reads could outlast 2 s), one of ttl_seconds 2 that none does once it passed.
  const living: ExpiryWorld = await expiryWorld(core.facade, admin, await reader('watcher-1'), [await reader('drainer-1')], 3600);
  const world: ExpiryWorld = await expiryWorld(core.facade, admin, await reader('watcher-2'), [await reader('drainer-2')], 2);
  for (const [path, read] of Object.entries(READ_PATHS)) {
    expect(await seenBy(read, living), `${path} while it lives`).toBe(true);
  }
  await waitFor(() => Date.now() > Date.parse(world.expiresAt) + 50);
  for (const [path, read] of Object.entries(READ_PATHS)) {
    expect(await seenBy(read, world), `${path} after expiry`).toBe(false);
  }
  const { rows } = await core.db.query<{ n: number }>('SELECT count(*)::int AS n FROM cells WHERE node_id = $1', [world.canaryId]);
  expect(rows[0]?.n, 'no sweep ran: the row is still there').toBe(1);
}

onEveryDatabase('a cell with ttl_seconds 2', TEST_DRIVERS, 'is returned by every read path while it lives and by none once 2 s have passed, with no sweep run', readPathsForgetAnExpiredCell);
