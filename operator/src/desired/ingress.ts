// Ingress exposing the MCP endpoint (/mcp), the REST API (/v1) and the web console (/console) of the API Service — with
// spec.oauth also the protected-resource metadata clients discover sign-in from — and with
// ingress.grpcHost (and the gRPC port on) every path of that host to its gRPC port.
import type { HyphaeMeshSpec } from '../crd/hyphae-mesh-schema.js';
import type { KubeObject } from '../kube/kube-object.js';
import { compact, metadata, names } from './common.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export const INGRESS_PATHS = ['/mcp', '/v1', '/console'] as const;
/** RFC 9728's document and its /mcp form (a Prefix path covers both). */
export const OAUTH_METADATA_PATH = '/.well-known/oauth-protected-resource';

export function ingress(mesh: HyphaeMesh, spec: HyphaeMeshSpec): KubeObject {
  const { className, host, grpcHost, tlsSecretName } = spec.ingress;
  const backend = { service: { name: names.api(mesh), port: { name: 'http' } } };
  const paths = spec.oauth === undefined ? INGRESS_PATHS : [...INGRESS_PATHS, OAUTH_METADATA_PATH];
  const grpc = grpcHost !== undefined && spec.api.grpcPort > 0 ? grpcHost : undefined;
  const grpcRules =
    grpc === undefined ? [] : [{ host: grpc, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: names.api(mesh), port: { name: 'grpc' } } } }] } }];
  return compact({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: metadata(mesh, names.api(mesh), 'api'),
    spec: {
      ingressClassName: className,
      tls: tlsSecretName && host ? [{ hosts: grpc === undefined ? [host] : [host, grpc], secretName: tlsSecretName }] : undefined,
      rules: [{ host, http: { paths: paths.map((path) => ({ path, pathType: 'Prefix', backend })) } }, ...grpcRules],
    },
  });
}
