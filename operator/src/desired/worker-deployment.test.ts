import { describe, expect, it } from 'vitest';
import { meshFixture, podSpecOf, restrictedViolations } from './test-fixtures.js';
import { workerDeployment } from './worker-deployment.js';

describe('workerDeployment', () => {
  it('runs `hyphae worker` against the NATS URL with its embedder', () => {
    const { mesh, spec } = meshFixture({
      workers: { replicas: 4, embedder: 'openai', model: 'text-embedding-3-small', url: 'http://tei:80', apiKeySecret: { name: 'oa' } },
    });
    const d = workerDeployment(mesh, spec);
    const c = podSpecOf(d).containers[0] as unknown as Record<string, unknown>;
    expect((d.spec as { replicas: number }).replicas).toBe(4);
    expect(c.command).toEqual(['hyphae', 'worker', '--nats-url', 'nats://demo-nats.team-a.svc:4222', '--port', '8788']);
    expect(c.env).toEqual([
      { name: 'HYPHAE_HOST', value: '0.0.0.0' },
      { name: 'HYPHAE_EMBEDDER', value: 'openai' },
      { name: 'HYPHAE_EMBED_MODEL', value: 'text-embedding-3-small' },
      { name: 'HYPHAE_EMBED_URL', value: 'http://tei:80' },
      { name: 'HYPHAE_EMBED_API_KEY', valueFrom: { secretKeyRef: { name: 'oa', key: 'api-key' } } },
    ]);
    expect(restrictedViolations(podSpecOf(d))).toEqual([]);
    expect(podSpecOf(d).securityContext).toMatchObject({ runAsUser: 65532, runAsGroup: 65532, fsGroup: 65532 });
    expect(c.resources).toEqual({ requests: { cpu: '100m', memory: '256Mi' } });
  });
});
