import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError } from '../../core/errors.js';
import { startAuthorizationServer, type AuthorizationServer } from '../../../test/support/authorization-server.js';
import { rejectionOf } from '../../../test/support/rejection.js';
import { discoverIssuerMetadata, metadataUrlsFor } from './issuer-metadata.js';
import { IssuerMetadataSource } from './issuer-metadata-source.js';

/** A loopback server answering each path from `documents` (404 otherwise) and counting requests. */
async function startMetadataServer(documents: (base: string) => Record<string, unknown>): Promise<{ base: string; hits: string[]; server: Server }> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? '');
    const body = documents(base)[req.url ?? ''];
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'application/json' }).end(typeof body === 'string' ? body : JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, hits, server };
}


const servers: Server[] = [];
let as: AuthorizationServer;

beforeAll(async () => {
  as = await startAuthorizationServer();
});

afterAll(async () => {
  await as?.close();
  for (const server of servers) server.close();
});

async function stub(documents: (base: string) => Record<string, unknown>): Promise<{ base: string; hits: string[] }> {
  const started = await startMetadataServer(documents);
  servers.push(started.server);
  return started;
}

describe('issuer metadata discovery', () => {
  it('builds the RFC 8414 and OpenID Connect addresses, inserting or appending an issuer path', () => {
    expect(metadataUrlsFor('https://id.example.com')).toEqual([
      'https://id.example.com/.well-known/oauth-authorization-server',
      'https://id.example.com/.well-known/openid-configuration',
    ]);
    expect(metadataUrlsFor('https://id.example.com/realms/hyphae/')).toEqual([
      'https://id.example.com/.well-known/oauth-authorization-server/realms/hyphae',
      'https://id.example.com/.well-known/openid-configuration/realms/hyphae',
      'https://id.example.com/realms/hyphae/.well-known/openid-configuration',
    ]);
  });

  it('reads a real authorization server: its JWKS, introspection, authorization and token endpoints and signing algorithms', async () => {
    const metadata = await discoverIssuerMetadata(as.issuer);
    expect(metadata).toEqual({
      issuer: as.issuer,
      jwksUri: `${as.issuer}/jwks`,
      introspectionEndpoint: `${as.issuer}/token/introspection`,
      authorizationEndpoint: `${as.issuer}/auth`,
      tokenEndpoint: `${as.issuer}/token`,
      signingAlgorithms: ['RS256'],
    });
  });

  it('falls back to openid-configuration when RFC 8414 metadata is absent', async () => {
    const { base, hits } = await stub((b) => ({ '/tenant/.well-known/openid-configuration': { issuer: `${b}/tenant`, jwks_uri: `${b}/keys` } }));
    const metadata = await discoverIssuerMetadata(`${base}/tenant`);
    expect(metadata.jwksUri).toBe(`${base}/keys`);
    expect(hits).toEqual([
      '/.well-known/oauth-authorization-server/tenant',
      '/.well-known/openid-configuration/tenant',
      '/tenant/.well-known/openid-configuration',
    ]);
  });

  it('refuses a document naming another issuer, an http jwks_uri or token endpoint off loopback, or no document at all', async () => {
    const impostor = await stub(() => ({ '/.well-known/oauth-authorization-server': { issuer: 'https://evil.example.com', jwks_uri: 'https://evil.example.com/k' } }));
    expect((await rejectionOf(discoverIssuerMetadata(impostor.base))).message).toContain('names another issuer');
    const cleartext = await stub((b) => ({ '/.well-known/oauth-authorization-server': { issuer: b, jwks_uri: 'http://keys.example.com/jwks' } }));
    expect((await rejectionOf(discoverIssuerMetadata(cleartext.base))).message).toContain('jwks_uri is not https');
    const cleartextToken = await stub((b) => ({ '/.well-known/oauth-authorization-server': { issuer: b, jwks_uri: `${b}/jwks`, token_endpoint: 'http://tokens.example.com/token' } }));
    expect((await rejectionOf(discoverIssuerMetadata(cleartextToken.base))).message).toContain('token_endpoint is not https');
    const broken = await stub(() => ({ '/.well-known/oauth-authorization-server': 'not json' }));
    expect((await rejectionOf(discoverIssuerMetadata(broken.base))).message).toContain('not JSON');
    const empty = await stub(() => ({}));
    const error = await rejectionOf(discoverIssuerMetadata(empty.base));
    expect(error).toBeInstanceOf(UnavailableError);
    expect(error.message).toContain('no metadata');
  });

  it('is discovered once, and after a failure not again until the retry interval has passed', async () => {
    let now = 1_000_000;
    const { base, hits } = await stub((b) => (now >= 1_020_000 ? { '/.well-known/oauth-authorization-server': { issuer: b, jwks_uri: `${b}/k` } } : {}));
    const source = new IssuerMetadataSource(base, { now: () => now, retryAfterMs: 10_000 });
    await rejectionOf(source.get());
    expect(hits).toHaveLength(2);
    now += 5_000;
    const waiting = await rejectionOf(source.get());
    expect(waiting).toBeInstanceOf(UnavailableError);
    expect(hits).toHaveLength(2);
    now += 15_000;
    expect((await source.get()).jwksUri).toBe(`${base}/k`);
    await source.get();
    expect(hits).toHaveLength(3);
  });
});
