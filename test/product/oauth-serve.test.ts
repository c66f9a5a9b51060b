/**
 * Sign-in with OAuth end to end, as claude.ai or ChatGPT does it: `hyphae serve` spawned with the
 * OAuth settings, a real authorization server (oidc-provider) started by the test, and the
 * official MCP SDK client's OAuth flow — discovery from the 401, dynamic client registration,
 * authorization code with PKCE, consent automated — then tools/call and resources/read with the
 * token. REST and gRPC accept the same token; API keys keep working beside it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConnectError, Code } from '@connectrpc/connect';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { decodeJwt } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryService } from '../../src/grpc/gen/hyphae/v1/memory_pb.js';
import { startAuthorizationServer, type AuthorizationServer } from '../support/authorization-server.js';
import { AutomatedOAuthClientProvider } from './oauth-client-provider.js';
import { startServer, type RunningServer } from '../support/cli-process.js';
import { connectClient } from '../support/grpc/connect-clients.js';
import { freeLoopbackPort } from '../support/nats-server.js';

const AGENT_SCOPES = 'hyphae:read hyphae:write';
const CONTENT = 'The billing service rotates its signing keys every ninety days.';


function serveEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('HYPHAE_')) env[key] = value;
  return { ...env, HYPHAE_EMBEDDER: 'hash', HYPHAE_LOG_LEVEL: 'info', ...extra };
}

describe('OAuth sign-in against `hyphae serve`', { timeout: 300_000 }, () => {
  let as: AuthorizationServer;
  let server: RunningServer | undefined;
  let root: string;
  let publicUrl: string;
  let grpcAddress: string;
  let adminKey: string;

  beforeAll(async () => {
    as = await startAuthorizationServer({ signInAs: { sub: 'alice', claims: { hyphae_tenant: 'acme' } } });
    root = await mkdtemp(join(tmpdir(), 'hyphae-oauth-product-'));
    const [port, grpcPort] = [await freeLoopbackPort(), await freeLoopbackPort()];
    publicUrl = `http://127.0.0.1:${port}`;
    grpcAddress = `127.0.0.1:${grpcPort}`;
    server = await startServer(
      ['--port', String(port)],
      serveEnv({
        HYPHAE_DATA_DIR: join(root, 'data'),
        HYPHAE_GRPC_PORT: String(grpcPort),
        HYPHAE_PUBLIC_URL: publicUrl,
        HYPHAE_OAUTH_ISSUER: as.issuer,
        HYPHAE_OAUTH_ALLOWED_TENANTS: 'acme',
      }),
    );
    adminKey = /hy_[A-Za-z0-9_-]{20,}/.exec(server.stdout())?.[0] ?? '';
  });

  afterAll(async () => {
    await server?.stop();
    await as?.close();
    if (root !== undefined) await rm(root, { recursive: true, force: true });
  });

  it('signs the official SDK client in from the 401 and serves tools/call and resources/read with its token', async () => {
    const provider = new AutomatedOAuthClientProvider(as);
    const mcpUrl = new URL('/mcp', publicUrl);
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    await expect(new Client({ name: 'oauth-host', version: '1.0.0' }).connect(first)).rejects.toBeInstanceOf(UnauthorizedError);

    // The SDK found the authorization server from the 401, registered itself and asked with PKCE for this resource.
    expect(provider.clientInformation()?.client_id).toBeTruthy();
    const [authorization] = provider.authorizationUrls;
    expect(authorization?.origin).toBe(as.issuer);
    expect(authorization?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization?.searchParams.get('resource')).toMatch(new RegExp(`^${publicUrl}/?$`));
    expect(authorization?.searchParams.get('scope')).toBe(AGENT_SCOPES);
    await first.finishAuth(provider.authorizationCode ?? '');
    const token = provider.tokens()?.access_token ?? '';
    expect(decodeJwt(token)).toMatchObject({ iss: as.issuer, sub: 'alice', hyphae_tenant: 'acme', scope: AGENT_SCOPES });

    const client = new Client({ name: 'oauth-host', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider }));
    try {
      const stored = await client.callTool({ name: 'store', arguments: { content: CONTENT, cell_type: 'Fact' } });
      expect(stored.isError, JSON.stringify(stored)).toBe(false);
      const nodeId = (stored.structuredContent as { node_id: string }).node_id;
      const read = await client.readResource({ uri: `hyphae://cells/${nodeId}` });
      expect(JSON.stringify(read.contents)).toContain(CONTENT);
      const recalled = await client.callTool({ name: 'recall', arguments: { query: CONTENT, k: 1 } });
      expect((recalled.structuredContent as { results: { node_id: string }[] }).results[0]?.node_id).toBe(nodeId);

      // The same token on REST and gRPC, as the same agent of the same tenant.
      const rest = await fetch(`${publicUrl}/v1/cells/${nodeId}`, { headers: { authorization: `Bearer ${token}` } });
      expect(rest.status).toBe(200);
      expect(await rest.json()).toMatchObject({ node_id: nodeId, source_agent: 'alice' });
      const grpc = await connectClient(MemoryService, grpcAddress).getCell({ nodeId }, { headers: { authorization: `Bearer ${token}` } });
      expect(grpc.node?.content).toBe(CONTENT);

      // An API key keeps working beside OAuth, in its own tenant.
      const byKey = await fetch(`${publicUrl}/v1/cells/${nodeId}`, { headers: { 'x-hyphae-key': adminKey } });
      expect(byKey.status).toBe(404);
    } finally {
      await client.close();
    }
  });

  it('answers a read-only sign-in calling a writing tool with 403 insufficient_scope, and the SDK steps up to the scope', async () => {
    const provider = new AutomatedOAuthClientProvider(as);
    const mcpUrl = new URL('/mcp', publicUrl);
    as.consentLimit = ['hyphae:read'];
    const signIn = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    try {
      await expect(new Client({ name: 'oauth-host', version: '1.0.0' }).connect(signIn)).rejects.toBeInstanceOf(UnauthorizedError);
      await signIn.finishAuth(provider.authorizationCode ?? '');
    } finally {
      as.consentLimit = undefined;
    }
    expect(provider.tokens()?.scope).toBe('hyphae:read');

    const raw = await fetch(mcpUrl, {
      method: 'POST',
      headers: { authorization: `Bearer ${provider.tokens()?.access_token ?? ''}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'store', arguments: { content: 'read-only', cell_type: 'Fact' } } }),
    });
    expect(raw.status).toBe(403);
    expect(raw.headers.get('www-authenticate')).toMatch(/^Bearer resource_metadata="[^"]+", error="insufficient_scope", error_description="[^"]+", scope="hyphae:write"$/);
    expect(await raw.json()).toMatchObject({ id: 7, error: { data: { code: 'FORBIDDEN', required_role: 'writer' } } });

    const transport = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider });
    const client = new Client({ name: 'oauth-host', version: '1.0.0' });
    await client.connect(transport);
    try {
      const recalled = await client.callTool({ name: 'recall', arguments: { query: CONTENT, k: 1 } });
      expect(recalled.isError).toBe(false);
      const before = provider.authorizationUrls.length;
      await expect(client.callTool({ name: 'store', arguments: { content: 'after step-up', cell_type: 'Fact' } })).rejects.toBeInstanceOf(UnauthorizedError);
      expect(provider.authorizationUrls[before]?.searchParams.get('scope')).toBe('hyphae:write');
      await transport.finishAuth(provider.authorizationCode ?? '');
      const stored = await client.callTool({ name: 'store', arguments: { content: 'after step-up', cell_type: 'Fact' } });
      expect(stored.isError, JSON.stringify(stored)).toBe(false);
    } finally {
      await client.close();
    }
  });

  it('points a request without credentials at the protected-resource metadata, which names the issuer', async () => {
    const refused = await fetch(`${publicUrl}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toBe(
      `Bearer resource_metadata="${publicUrl}/.well-known/oauth-protected-resource", scope="${AGENT_SCOPES}"`,
    );
    for (const [path, resource] of [
      ['/.well-known/oauth-protected-resource', publicUrl],
      ['/.well-known/oauth-protected-resource/mcp', `${publicUrl}/mcp`],
    ] as const) {
      const metadata = await fetch(`${publicUrl}${path}`);
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toMatchObject({ resource, authorization_servers: [as.issuer], bearer_methods_supported: ['header'] });
    }
    const rest = await fetch(`${publicUrl}/v1/cells`);
    expect(rest.status).toBe(401);
    expect(rest.headers.get('www-authenticate')).toContain('resource_metadata=');
  });

  it('refuses a token for another resource (401 invalid_token) and one without the scope an operation needs (403 insufficient_scope)', async () => {
    const elsewhere = await as.obtainAccessToken({ resource: 'https://other.example.com', scope: AGENT_SCOPES });
    const wrongAudience = await fetch(`${publicUrl}/v1/cells`, { headers: { authorization: `Bearer ${elsewhere.accessToken}` } });
    expect(wrongAudience.status).toBe(401);
    expect(wrongAudience.headers.get('www-authenticate')).toContain('error="invalid_token"');

    const readOnly = await as.obtainAccessToken({ resource: publicUrl, scope: 'hyphae:read' });
    const store = await fetch(`${publicUrl}/v1/cells`, {
      method: 'POST',
      headers: { authorization: `Bearer ${readOnly.accessToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ content: 'not allowed', cell_type: 'Fact' }),
    });
    expect(store.status).toBe(403);
    expect(store.headers.get('www-authenticate')).toContain('error="insufficient_scope"');
    expect(store.headers.get('www-authenticate')).toContain('scope="hyphae:write"');
    const list = await fetch(`${publicUrl}/v1/cells`, { headers: { authorization: `Bearer ${readOnly.accessToken}` } });
    expect(list.status).toBe(200);

    const grpc = await connectClient(MemoryService, grpcAddress)
      .store({ content: 'not allowed', cellType: 'Fact' }, { headers: { authorization: `Bearer ${readOnly.accessToken}` } })
      .then(() => undefined, (error: unknown) => ConnectError.from(error));
    expect(grpc?.code).toBe(Code.PermissionDenied);
    const forged = await connectClient(MemoryService, grpcAddress)
      .getCell({ nodeId: '00000000-0000-4000-8000-000000000000' }, { headers: { authorization: `Bearer ${elsewhere.accessToken}` } })
      .then(() => undefined, (error: unknown) => ConnectError.from(error));
    expect(forged?.code).toBe(Code.Unauthenticated);

    // The server logs why it refused the token, and no token it was sent.
    const log = `${server?.stdout()}${server?.stderr()}`;
    expect(log).toContain('not issued for this server (aud)');
    for (const token of [elsewhere.accessToken, readOnly.accessToken]) expect(log).not.toContain(token.split('.')[1]);
  });
});
