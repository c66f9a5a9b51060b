import { describe, expect, it } from 'vitest';
import { createOperatorMetrics } from './operator-metrics.js';

describe('createOperatorMetrics', () => {
  it('exports each condition of each tracked mesh, 1 for its status, and forgets meshes that are gone', async () => {
    const metrics = createOperatorMetrics();
    let meshes = [
      { metadata: { namespace: 'a', name: 'one' }, status: { conditions: [{ type: 'Ready', status: 'True' }, { type: 'Degraded', status: 'False' }] } },
      { metadata: { namespace: 'b', name: 'two' }, status: { conditions: [{ type: 'Ready', status: 'Unknown' }] } },
    ];
    metrics.trackMeshes(() => meshes);
    const values = async (): Promise<Record<string, number>> => {
      const { values: samples } = await (metrics.registry.getSingleMetric('hyphae_operator_mesh_condition')?.get() ?? Promise.resolve({ values: [] }));
      return Object.fromEntries(samples.map((s) => [`${String(s.labels.namespace)}/${String(s.labels.mesh)} ${String(s.labels.type)}=${String(s.labels.status)}`, s.value]));
    };
    expect(await values()).toEqual({
      'a/one Ready=true': 1,
      'a/one Ready=false': 0,
      'a/one Ready=unknown': 0,
      'a/one Degraded=true': 0,
      'a/one Degraded=false': 1,
      'a/one Degraded=unknown': 0,
      'b/two Ready=true': 0,
      'b/two Ready=false': 0,
      'b/two Ready=unknown': 1,
    });
    meshes = [meshes[1] as (typeof meshes)[number]];
    expect(Object.keys(await values()).every((k) => k.startsWith('b/two'))).toBe(true);
  });

  it('exports both reconcile results from the first scrape on', async () => {
    const { values } = await createOperatorMetrics().reconciles.get();
    expect(values.map((v) => [v.labels.result, v.value])).toEqual([
      ['success', 0],
      ['error', 0],
    ]);
  });
});
