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
            paths: ['/mcp', '/v1', '/console'].map((path) => ({
              path,
              pathType: 'Prefix',
              backend: { service: { name: 'demo-api', port: { name: 'http' } } },
            })),
          },
        },
      ],
    });
  });

  it('routes every path of grpcHost to the gRPC port, covered by the same TLS secret', () => {
    const { mesh, spec } = meshFixture({ ingress: { enabled: true, host: 'mem.example.com', grpcHost: 'grpc.mem.example.com', tlsSecretName: 'mem-tls' } });
    const i = ingress(mesh, spec) as unknown as { spec: { tls: { hosts: string[] }[]; rules: { host: string; http: { paths: unknown[] } }[] } };
    expect(i.spec.tls[0]?.hosts).toEqual(['mem.example.com', 'grpc.mem.example.com']);
    expect(i.spec.rules[1]).toEqual({
      host: 'grpc.mem.example.com',
      http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'demo-api', port: { name: 'grpc' } } } }] },
    });
    const off = meshFixture({ api: { grpcPort: 0 }, ingress: { enabled: true, host: 'mem.example.com', grpcHost: 'grpc.mem.example.com' } });
    expect((ingress(off.mesh, off.spec) as unknown as { spec: { rules: unknown[] } }).spec.rules).toHaveLength(1);
  });

  it('adds the OAuth protected-resource metadata path with spec.oauth', () => {
    const { mesh, spec } = meshFixture({ ingress: { enabled: true, host: 'mem.example.com' }, oauth: { issuer: 'https://id.example.com', defaultTenant: 'acme' } });
    const i = ingress(mesh, spec) as unknown as { spec: { rules: { http: { paths: { path: string }[] } }[] } };
    expect(i.spec.rules[0]?.http.paths.map((p) => p.path)).toEqual(['/mcp', '/v1', '/console', '/.well-known/oauth-protected-resource']);
  });
});
