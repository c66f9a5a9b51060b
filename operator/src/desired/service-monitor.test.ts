import { describe, expect, it } from 'vitest';
import { serviceMonitor } from './service-monitor.js';
import { meshFixture } from './test-fixtures.js';

describe('serviceMonitor', () => {
  it('scrapes /metrics on the API Service port', () => {
    const { mesh, spec } = meshFixture({ monitoring: { serviceMonitor: { enabled: true, interval: '15s' } } });
    expect(serviceMonitor(mesh, spec).spec).toMatchObject({
      selector: { matchLabels: { 'app.kubernetes.io/component': 'api' } },
      endpoints: [{ port: 'http', path: '/metrics', interval: '15s' }],
    });
  });
});
