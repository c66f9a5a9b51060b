/**
 * A live stream opened with an opaque (introspected) access token used to outlive its token: it
 * ended only at `exp`, and never when the answer had none, so a token revoked at the identity
 * provider kept its GET /mcp stream. Now the stream asks the issuer again each introspection
 * period and ends once the token is no longer active — with a real authorization server on
 * loopback, whose revocation endpoint the test calls.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { startAuthorizationServer, type AuthorizationServer } from '../support/authorization-server.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { startMeshReplica, type MeshReplica } from '../support/mesh/mesh-replica.js';
import { openSse, type SseConnection } from '../support/sse-client.js';
import { waitFor } from '../support/wait-for.js';

const PUBLIC_URL = 'http://127.0.0.1:8787';
/** Short, so a test sees several re-checks; production's is 30 s. */
const INTROSPECTION_PERIOD_MS = 300;

describe('a stream opened with an introspected token (GET /mcp)', () => {
  let as: AuthorizationServer;
  let embedder: Embedder;
  let replica: MeshReplica;
  const streams: SseConnection[] = [];

  beforeAll(async () => {
    as = await startAuthorizationServer({ opaqueResources: [PUBLIC_URL] });
    embedder = await createEmbedder({ kind: 'hash' });
    replica = await startMeshReplica({
      name: 'oauth-streams',
      db: await createMeshTestDb(embedder.dimension),
      bus: new MemoryBus(),
      embedder,
      facade: { streamRevocationCheckMs: 50, introspectionCacheMs: INTROSPECTION_PERIOD_MS },
      env: {
        HYPHAE_PUBLIC_URL: PUBLIC_URL,
        HYPHAE_OAUTH_ISSUER: as.issuer,
        HYPHAE_OAUTH_ALLOWED_TENANTS: 'acme',
        HYPHAE_OAUTH_INTROSPECTION_CLIENT_ID: as.introspectionClient.clientId,
        HYPHAE_OAUTH_INTROSPECTION_CLIENT_SECRET: as.introspectionClient.clientSecret,
      },
    });
  });

  afterAll(async () => {
    for (const stream of streams) stream.close();
    await replica?.close();
    await embedder?.close();
    await as?.close();
  });

  it.each([
    ['whose answers carry exp', false],
    ['whose answers carry no exp', true],
  ])('goes on while the token is active and ends once it is revoked at the provider (a token %s)', async (_case, omitExp) => {
    as.introspectionOmitsExp = omitExp;
    try {
      const { accessToken } = await as.obtainAccessToken({ resource: PUBLIC_URL, scope: 'hyphae:read' });
      const stream = await openSse(`${replica.url}/mcp`, { authorization: `Bearer ${accessToken}` });
      streams.push(stream);
      expect(stream.status).toBe(200);
      let ended = false;
      void stream.ended.then(() => (ended = true));

      // Several periods pass: the stream asks each time and stays open while the token is active.
      const asked = as.introspections;
      await waitFor(() => as.introspections >= asked + 3);
      expect(ended).toBe(false);
      expect(replica.facade.openLiveStreams).toBe(1);

      await as.revoke(accessToken);
      await stream.ended;
      await waitFor(() => replica.facade.openLiveStreams === 0);
      const refused = await fetch(`${replica.url}/v1/cells`, { headers: { authorization: `Bearer ${accessToken}` } });
      expect(refused.status).toBe(401);
      expect(replica.errors).toEqual([]);
    } finally {
      as.introspectionOmitsExp = false;
    }
  });
});
