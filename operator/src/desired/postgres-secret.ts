// Credentials of the managed PostgreSQL. The password is an input, not derived from the spec:
// the reconciler reads it back from the live Secret (or generates one the first time) so the
// desired state stays a pure function and the password never changes under a running database.
import { randomBytes } from 'node:crypto';
import type { KubeObject } from '../kube/kube-object.js';
import { POSTGRES_PORT, metadata, names } from './common.js';
import type { HyphaeMesh } from './hyphae-mesh.js';

export const POSTGRES_USER = 'hyphae';
export const POSTGRES_DB = 'hyphae';

export function generatePassword(): string {
  return randomBytes(24).toString('base64url');
}

const b64 = (s: string): string => Buffer.from(s, 'utf8').toString('base64');

export function postgresSecret(mesh: HyphaeMesh, password: string): KubeObject {
  const host = `${names.postgres(mesh)}.${mesh.metadata.namespace}.svc`;
  const url = `postgres://${POSTGRES_USER}:${encodeURIComponent(password)}@${host}:${POSTGRES_PORT}/${POSTGRES_DB}`;
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: metadata(mesh, names.postgres(mesh), 'postgres'),
    type: 'Opaque',
    // `data`, not `stringData`: the server stores data, so comparing live to desired stays exact.
    data: { username: b64(POSTGRES_USER), password: b64(password), database: b64(POSTGRES_DB), url: b64(url) },
  };
}

export function passwordFromSecret(secret: KubeObject | undefined): string | undefined {
  const data = secret?.data as Record<string, string> | undefined;
  const encoded = data?.password;
  return encoded ? Buffer.from(encoded, 'base64').toString('utf8') : undefined;
}
