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
      ports: [
        { name: 'http', port: 9000, targetPort: 'http', protocol: 'TCP' },
        { name: 'grpc', port: 50051, targetPort: 'grpc', protocol: 'TCP', appProtocol: 'kubernetes.io/h2c' },
      ],
    });
  });

  it('leaves the gRPC port out when api.grpcPort is 0', () => {
    const { mesh, spec } = meshFixture({ api: { grpcPort: 0 } });
    expect((apiService(mesh, spec).spec as { ports: { name: string }[] }).ports.map((p) => p.name)).toEqual(['http']);
  });
});
