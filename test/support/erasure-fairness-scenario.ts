/**
 * An agent's erasure takes turns with stores that never pause (docs/forgetting.md): while another
 * agent stores back to back, with no gap in which anything else could run, the erasure of N cells
 * still returns, its receipt counts every cell and diff preview, and the other agent's cells are
 * all there; and when the erased agent itself keeps storing, the erasure still ends and what it had
 * before is gone. The writer stops once the erasure returned — or after STORE_BOUND stores, so a
 * starved erasure fails the test instead of hanging it (on PGlite nothing else, not even a timer, runs).
 */
import { randomUUID } from 'node:crypto';
import { expect, it } from 'vitest';
import type { ErasureReceipt } from '../../src/core/erasure-schemas.js';
import { freshTenant } from './facade-expectations.js';
import type { ScenarioHarness } from './scenario-harness.js';

/** Cells of the erased agent: several batches, whatever size the erasure's time budget gives them. */
const ERASED_CELLS = 250;
/** Far more stores than the erasure's turns (claim, batches, receipt) need when it takes turns fairly. */
const STORE_BOUND = 1_000;

export function erasureFairnessScenario(harness: () => ScenarioHarness): void {
  it('an agent erasure returns while another agent stores back to back, with a full receipt, and the other agent keeps every cell', { timeout: 120_000 }, async () => {
    const { facade, db, principal } = harness();
    const tenant = freshTenant('fair');
    const alice = await principal({ tenant, agent: 'alice' });
    const bob = await principal({ tenant, agent: 'bob' });
    const carol = await principal({ tenant, agent: 'carol' });
    const ops = await principal({ tenant, agent: 'ops', roles: ['admin'] });
    // carol receives both writers' cells, so the erasure's notices and bob's diffs meet in one inbox.
    await facade.placeBeacon(carol, { text: 'ledger settlement rule', threshold: 0.3, include_own: false });
    for (let i = 0; i < ERASED_CELLS; i++) await facade.store(alice, { content: distinctText('alice', i), cell_type: 'Fact', salience: 0.5 });
    const gossiped = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM diffs WHERE tenant_id = $1 AND recipient_agent = 'carol'`, [tenant]);
    expect(gossiped.rows[0]?.n).toBe(ERASED_CELLS);

    let returned: ErasureReceipt | undefined;
    const erasure = facade.eraseAgentMemories(ops, { agent: 'alice' }).then((receipt) => (returned = receipt));
    const stored = new Map<string, string>();
    while (returned === undefined && stored.size < STORE_BOUND) {
      const content = distinctText('bob', stored.size);
      stored.set((await facade.store(bob, { content, cell_type: 'Fact', salience: 0.5 })).node_id, content);
    }
    expect(returned, `the erasure had not returned after ${stored.size} stores of another agent`).toBeDefined();
    const receipt = await erasure;

    expect(receipt.counts).toEqual({ cells: ERASED_CELLS, lexical_terms: ERASED_CELLS, diff_previews: ERASED_CELLS });
    const left = await db.query<{ agent: string; n: number }>(`SELECT source_agent AS agent, count(*)::int AS n FROM cells WHERE tenant_id = $1 GROUP BY source_agent`, [tenant]);
    expect(left.rows).toEqual([{ agent: 'bob', n: stored.size }]);
    for (const [nodeId, content] of stored) expect((await facade.getCell(bob, nodeId)).content).toBe(content);
  });

  it('an agent erasure returns while that agent itself stores back to back; what it stored before is gone, and the receipt counts what went', { timeout: 120_000 }, async () => {
    const { facade, db, principal } = harness();
    const tenant = freshTenant('self');
    const alice = await principal({ tenant, agent: 'alice' });
    const ops = await principal({ tenant, agent: 'ops', roles: ['admin'] });
    const before: string[] = [];
    for (let i = 0; i < ERASED_CELLS; i++) before.push((await facade.store(alice, { content: distinctText('alice', i), cell_type: 'Fact', salience: 0.5 })).node_id);

    let returned: ErasureReceipt | undefined;
    const erasure = facade.eraseAgentMemories(ops, { agent: 'alice' }).then((receipt) => (returned = receipt));
    let during = 0;
    for (; returned === undefined && during < STORE_BOUND; during++) await facade.store(alice, { content: distinctText('alice-during', during), cell_type: 'Fact', salience: 0.5 });
    expect(returned, `the erasure had not returned after ${during} stores of the agent it erases`).toBeDefined();
    const receipt = await erasure;

    const left = await db.query<{ node_id: string }>(`SELECT node_id::text AS node_id FROM cells WHERE tenant_id = $1 AND source_agent = 'alice'`, [tenant]);
    expect(left.rows.filter((row) => before.includes(row.node_id))).toEqual([]);
    expect((receipt.counts.cells ?? 0) + left.rows.length).toBe(ERASED_CELLS + during);
  });
}

function distinctText(agent: string, i: number): string {
  return `ledger settlement rule ${agent} ${i} ${randomUUID()}`;
}
