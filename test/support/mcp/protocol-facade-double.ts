/**
 * A facade double for pure protocol tests (envelope, dispatch, error mapping) only: conformance,
 * identity and tenancy tests use the real facade from the test runtime.
 */
import { NotFoundError, UnauthenticatedError } from '../../../src/core/errors.js';
import type { Beacon } from '../../../src/core/entities.js';
import type { Principal } from '../../../src/core/principal.js';
import type { MemoryFacade } from '../../../src/service/memory-facade.js';

export const DOUBLE_PRINCIPAL: Principal = {
  tenantId: 'tenant-a',
  agent: 'agent-a',
  keyId: '00000000-0000-4000-8000-000000000001',
  roles: ['writer'],
  projects: ['*'],
  defaultProject: 'default',
  trust: 0.5,
};

export const DOUBLE_KEY = 'hyk_double_key_for_protocol_tests';

export const DOUBLE_BEACON: Beacon = {
  beacon_id: '6f1c2b8e-3f0a-4d5b-9c7e-0a1b2c3d4e5f',
  owner_agent: 'agent-a',
  project: null,
  text: 'database migrations',
  threshold: 0.7,
  cell_types: null,
  scene_id: null,
  include_own: false,
  expires_at: null,
  created_at: '2026-01-01T00:00:00.000Z',
};

function unexpected(name: string): () => Promise<never> {
  return () => Promise.reject(new Error(`protocol double: ${name} is not part of this test`));
}

/** Answers list_beacons, fails get_scene with NOT_FOUND and store with a raw driver-like error. */
export function createProtocolFacadeDouble(): MemoryFacade {
  return {
    authenticate: async (key) => {
      if (key === DOUBLE_KEY) return DOUBLE_PRINCIPAL;
      throw new UnauthenticatedError();
    },
    authenticateBearer: () => Promise.reject(new UnauthenticatedError()),
    store: () => Promise.reject(new Error('relation "cells" violates constraint; SELECT secret FROM keys')),
    getCell: unexpected('getCell'),
    cellHistory: unexpected('cellHistory'),
    listCells: unexpected('listCells'),
    deleteCell: unexpected('deleteCell'),
    forgetCells: unexpected('forgetCells'),
    purgeProject: unexpected('purgeProject'),
    recall: unexpected('recall'),
    query: unexpected('query'),
    openSession: unexpected('openSession'),
    closeSession: unexpected('closeSession'),
    getScene: (_principal, sceneId) => Promise.reject(new NotFoundError('scene', sceneId)),
    listScenes: unexpected('listScenes'),
    consolidateScene: unexpected('consolidateScene'),
    placeBeacon: unexpected('placeBeacon'),
    listBeacons: async () => ({ items: [DOUBLE_BEACON], next_cursor: null }),
    deleteBeacon: unexpected('deleteBeacon'),
    pullDiffs: unexpected('pullDiffs'),
    drainInbox: unexpected('drainInbox'),
    peekInbox: unexpected('peekInbox'),
    subscribeResource: unexpected('subscribeResource'),
    unsubscribeResource: unexpected('unsubscribeResource'),
    resourceSubscriptions: unexpected('resourceSubscriptions'),
    subscribeDiffs: unexpected('subscribeDiffs'),
    channelBacklog: unexpected('channelBacklog'),
    markChannelSettled: unexpected('markChannelSettled'),
    authorTrust: unexpected('authorTrust'),
    whoAmI: unexpected('whoAmI'),
    gossipAgents: unexpected('gossipAgents'),
    recentGossip: unexpected('recentGossip'),
    watchGossip: unexpected('watchGossip'),
    quotaUsage: unexpected('quotaUsage'),
    createKey: unexpected('createKey'),
    listKeys: unexpected('listKeys'),
    revokeKey: unexpected('revokeKey'),
    rotateKey: unexpected('rotateKey'),
    exportTenant: unexpected('exportTenant'),
    importTenant: unexpected('importTenant'),
    ingestSource: unexpected('ingestSource'),
    readSource: unexpected('readSource'),
    listSources: unexpected('listSources'),
    deleteSource: unexpected('deleteSource'),
    sourceStatus: unexpected('sourceStatus'),
    sourceChunks: unexpected('sourceChunks'),
    cellRelations: unexpected('cellRelations'),
    cellSubgraph: unexpected('cellSubgraph'),
    numberedSources: unexpected('numberedSources'),
    sourceSubgraph: unexpected('sourceSubgraph'),
    addRelations: unexpected('addRelations'),
    deleteRelation: unexpected('deleteRelation'),
    submitFeedback: unexpected('submitFeedback'),
    feedbackQuality: unexpected('feedbackQuality'),
    eraseAgentMemories: unexpected('eraseAgentMemories'),
    eraseTenant: unexpected('eraseTenant'),
    listErasureReceipts: unexpected('listErasureReceipts'),
  };
}
