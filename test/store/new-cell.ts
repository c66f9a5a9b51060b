/** A cell for the store's own insert (src/store/cell-repository.ts), for tests below the facade. */
import { randomUUID } from 'node:crypto';
import type { NewCell } from '../../src/store/cell-repository.js';
import type { VectorParam } from '../../src/store/vector-param.js';

/** A current L0 Fact of agent `agent` in project `p`, stored now, with text of its own; `overrides` replace any of that. */
export function newCell(tenantId: string, embedding: VectorParam, overrides: Partial<NewCell> = {}): NewCell {
  return {
    nodeId: randomUUID(),
    tenantId,
    project: 'p',
    content: `Note ${randomUUID()}`,
    cellType: 'Fact',
    salience: 0.5,
    sceneId: null,
    sessionId: null,
    sourceAgent: 'agent',
    sourceRef: null,
    metadata: {},
    idempotencyKey: null,
    layer: 'L0',
    originNodeId: null,
    trust: 0.5,
    embedding,
    now: new Date(),
    ...overrides,
  };
}
