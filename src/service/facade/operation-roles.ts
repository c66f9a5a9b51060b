/**
 * Which role each facade operation needs, declared once and enforced in one place: enforceRoles
 * wraps every operation so the check runs first, before any input is read. The two `authenticate`
 * methods are the operations without a principal, so they have no entry.
 */
import type { Role } from '../../core/cell-types.js';
import type { Principal } from '../../core/principal.js';
import { requireRole } from './authorization.js';
import type { MemoryFacade } from '../memory-facade.js';

export type FacadeOperations = Omit<MemoryFacade, 'authenticate' | 'authenticateBearer'>;

export const OPERATION_ROLES = {
  store: 'writer',
  getCell: 'reader',
  cellHistory: 'reader',
  listCells: 'reader',
  deleteCell: 'writer',
  forgetCells: 'writer',
  purgeProject: 'admin',
  recall: 'reader',
  query: 'reader',
  openSession: 'writer',
  closeSession: 'writer',
  getScene: 'reader',
  listScenes: 'reader',
  consolidateScene: 'writer',
  placeBeacon: 'reader',
  listBeacons: 'reader',
  deleteBeacon: 'reader',
  pullDiffs: 'reader',
  drainInbox: 'reader',
  peekInbox: 'reader',
  subscribeResource: 'reader',
  unsubscribeResource: 'reader',
  resourceSubscriptions: 'reader',
  subscribeDiffs: 'reader',
  channelBacklog: 'reader',
  markChannelSettled: 'reader',
  authorTrust: 'reader',
  createKey: 'admin',
  listKeys: 'admin',
  revokeKey: 'admin',
  rotateKey: 'admin',
  exportTenant: 'admin',
  importTenant: 'admin',
  whoAmI: 'reader',
  gossipAgents: 'reader',
  recentGossip: 'reader',
  watchGossip: 'reader',
  quotaUsage: 'admin',
  ingestSource: 'writer',
  readSource: 'reader',
  listSources: 'reader',
  deleteSource: 'writer',
  sourceStatus: 'reader',
  sourceChunks: 'reader',
  cellRelations: 'reader',
  cellSubgraph: 'reader',
  addRelations: 'writer',
  deleteRelation: 'writer',
  numberedSources: 'reader',
  sourceSubgraph: 'reader',
  // Judging a request reads it: a reader of the request's project may (feedback-operations.ts).
  submitFeedback: 'reader',
  // It shows every agent's queries and what they returned.
  feedbackQuality: 'admin',
  eraseAgentMemories: 'admin',
  eraseTenant: 'admin',
  listErasureReceipts: 'admin',
} as const satisfies Readonly<Record<keyof FacadeOperations, Role>>;

type Operation = (principal: Principal, ...rest: never[]) => Promise<unknown>;

/** The operations, each refusing a principal without its role (FORBIDDEN) before it runs. */
export function enforceRoles(operations: FacadeOperations): FacadeOperations {
  const guarded: Partial<Record<keyof FacadeOperations, Operation>> = {};
  for (const [name, role] of Object.entries(OPERATION_ROLES) as [keyof FacadeOperations, Role][]) {
    const operation = operations[name] as Operation;
    guarded[name] = async (principal, ...rest) => {
      requireRole(principal, role);
      return operation(principal, ...rest);
    };
  }
  return guarded as FacadeOperations;
}
