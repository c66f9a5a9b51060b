import { describe, expect, it } from 'vitest';
import { apiHpa } from './hpa.js';
import { meshFixture } from './test-fixtures.js';

describe('apiHpa', () => {
  it('scales the API Deployment on CPU between min and max', () => {
    const { mesh, spec } = meshFixture({ autoscaling: { enabled: true, minReplicas: 3, maxReplicas: 7, targetCPUUtilizationPercentage: 60 } });
    expect(apiHpa(mesh, spec).spec).toMatchObject({
      scaleTargetRef: { kind: 'Deployment', name: 'demo-api' },
      minReplicas: 3,
      maxReplicas: 7,
      metrics: [{ resource: { name: 'cpu', target: { averageUtilization: 60 } } }],
    });
  });
});
