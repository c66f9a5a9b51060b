import { describe, expect, it } from 'vitest';
import { apiService } from './api-service.js';
import { meshFixture } from './test-fixtures.js';

describe('apiService', () => {
  it('exposes the API port by name and selects the API pods', () => {
    const { mesh, spec } = meshFixture({ api: { port: 9000 } });
    const s = apiService(mesh, spec);
    expect(s.metadata.name).toBe('demo-api');
    expect(s.spec).toEqual({
      type: 'ClusterIP',
      selector: { 'app.kubernetes.io/name': 'hyphae', 'app.kubernetes.io/instance': 'demo', 'app.kubernetes.io/component': 'api' },
      ports: [{ name: 'http', port: 9000, targetPort: 'http', protocol: 'TCP' }],
    });
  });
});
