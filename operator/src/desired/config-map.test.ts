import { describe, expect, it } from 'vitest';
import { configMap } from './config-map.js';
import { meshFixture } from './test-fixtures.js';

describe('configMap', () => {
  it('points API pods at NATS for embeddings and binds all interfaces', () => {
    const { mesh, spec } = meshFixture();
    const cm = configMap(mesh, spec);
    expect(cm.metadata.name).toBe('demo-config');
    expect(cm.data).toEqual({
      HYPHAE_HOST: '0.0.0.0',
      HYPHAE_PORT: '8787',
      HYPHAE_EMBEDDER: 'nats',
      HYPHAE_NATS_URL: 'nats://demo-nats.team-a.svc:4222',
      HYPHAE_ALLOWED_HOSTS: 'demo-api,demo-api.team-a,demo-api.team-a.svc,demo-api.team-a.svc.cluster.local',
    });
  });

  it('uses the external NATS URL and allows the ingress host', () => {
    const { mesh, spec } = meshFixture({ nats: { mode: 'external', url: 'nats://nats.infra:4222' }, ingress: { enabled: true, host: 'mem.example.com' } });
    const data = configMap(mesh, spec).data as Record<string, string>;
    expect(data.HYPHAE_NATS_URL).toBe('nats://nats.infra:4222');
    expect(data.HYPHAE_ALLOWED_HOSTS?.split(',')).toContain('mem.example.com');
  });
});
