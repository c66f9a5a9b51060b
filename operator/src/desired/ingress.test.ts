import { describe, expect, it } from 'vitest';
import { ingress } from './ingress.js';
import { meshFixture } from './test-fixtures.js';

describe('ingress', () => {
  it('routes /mcp and /v1 to the API Service with TLS', () => {
    const { mesh, spec } = meshFixture({ ingress: { enabled: true, className: 'nginx', host: 'mem.example.com', tlsSecretName: 'mem-tls' } });
    const i = ingress(mesh, spec);
    expect(i.spec).toEqual({
      ingressClassName: 'nginx',
      tls: [{ hosts: ['mem.example.com'], secretName: 'mem-tls' }],
      rules: [
        {
          host: 'mem.example.com',
          http: {
            paths: ['/mcp', '/v1'].map((path) => ({
              path,
              pathType: 'Prefix',
              backend: { service: { name: 'demo-api', port: { name: 'http' } } },
            })),
          },
        },
      ],
    });
  });
});
