/**
 * Quality on real traffic as Prometheus counters (docs/feedback.md): the metered facade counts each
 * feedback by sender label, and judged ones by where their truth ranked — truth at rank 1, at rank
 * 4, not surfaced — so recall@1, recall@5, MRR and the share not surfaced follow; a tenant label
 * only when asked for.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHyphaeMetrics } from '../../src/metrics/index.js';
import { meteredFacade } from '../../src/service/index.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';
import { handLoggedRequest } from '../support/feedback-scenarios.js';
import { parsePrometheusText } from '../support/prometheus-text.js';

describe('feedback counters', () => {
  let rt: TestRuntime;
  beforeAll(async () => {
    rt = await createTestRuntime();
  });
  afterAll(async () => rt.close());

  async function judgeThree(tenantLabel: boolean, tenant: string): Promise<Map<string, number>> {
    const metrics = createHyphaeMetrics({ tenantLabel });
    const facade = meteredFacade(rt.facade, metrics);
    const p = await rt.principal({ tenant, agent: 'judge' });
    const ids: string[] = [];
    for (const word of ['amber', 'birch', 'cobalt', 'delta', 'ember']) ids.push((await rt.facade.store(p, { content: `the ${word} ledger settles`, cell_type: 'Fact', salience: 0.5 })).node_id);
    const [a, b, c, d, e] = ids as [string, string, string, string, string];
    const requestId = await handLoggedRequest(rt, p, [a, b, c, d]);
    await facade.submitFeedback(p, { request_id: requestId, ground_truth_ids: [a] });
    await facade.submitFeedback(p, { request_id: requestId, ground_truth_ids: [d] });
    await facade.submitFeedback(p, { request_id: requestId, ground_truth_ids: [e] });
    await facade.submitFeedback(p, { request_id: requestId, feedback: 'text only is not judged' });
    await facade.submitFeedback({ ...p, human: true }, { request_id: requestId, feedback: 'a person says so' });
    const samples = new Map<string, number>();
    for (const family of parsePrometheusText(await metrics.render()).values()) {
      if (!family.name.startsWith('hyphae_feedback_')) continue;
      for (const sample of family.samples) samples.set(`${sample.name}${JSON.stringify(sample.labels)}`, sample.value);
    }
    return samples;
  }

  it('counts judged requests by where the truth ranked, and feedback by sender label', async () => {
    const samples = await judgeThree(false, 'counters');
    expect(samples.get('hyphae_feedback_total{"label":"agent"}')).toBe(4);
    expect(samples.get('hyphae_feedback_total{"label":"human"}')).toBe(1);
    expect(samples.get('hyphae_feedback_judged_total{"label":"agent"}')).toBe(3);
    expect(samples.get('hyphae_feedback_judged_total{"label":"human"}')).toBe(0);
    expect(samples.get('hyphae_feedback_truth_found_total{"label":"agent","within":"1"}')).toBe(1);
    expect(samples.get('hyphae_feedback_truth_found_total{"label":"agent","within":"5"}')).toBe(2);
    expect(samples.get('hyphae_feedback_truth_found_total{"label":"agent","within":"any"}')).toBe(2);
    expect(samples.get('hyphae_feedback_reciprocal_rank_total{"label":"agent"}')).toBeCloseTo(1.25, 10);
    expect([...samples.keys()].some((key) => key.includes('tenant'))).toBe(false);
  });

  it('labels them by tenant only when the operator asks', async () => {
    const samples = await judgeThree(true, 'labelled');
    expect(samples.get('hyphae_feedback_judged_total{"label":"agent","tenant":"labelled"}')).toBe(3);
    expect(samples.get('hyphae_feedback_truth_found_total{"label":"agent","tenant":"labelled","within":"5"}')).toBe(2);
  });
});
