/** A diff as an inbox holds one, for tests of how a diff is shown to a model (channel events, the inbox resource). */
import type { Diff } from '../../src/core/entities.js';

export const SAMPLE_DIFF_NODE = '7d1f7a3e-1c2b-4d5e-8f90-a1b2c3d4e5f6';
export const SAMPLE_DIFF_BEACON = '0b9e2f4c-5d6a-4b7c-9e8f-112233445566';

/** A created Constraint by alice in payments, matched at similarity 0.8312, with `overrides` over it. */
export function sampleDiff(overrides: Partial<Diff> = {}): Diff {
  return {
    diff_id: '5a5a5a5a-0000-4000-8000-000000000000',
    seq: 7,
    op: 'created',
    node_id: SAMPLE_DIFF_NODE,
    beacon_id: SAMPLE_DIFF_BEACON,
    similarity: 0.8312,
    cell_type: 'Constraint',
    salience: 0.5,
    source_agent: 'alice',
    project: 'payments',
    scene_id: null,
    preview: 'never call the ledger API without an idempotency key',
    created_at: '2026-12-05T00:00:00.000Z',
    supersedes: null,
    source_id: null,
    ...overrides,
  };
}
