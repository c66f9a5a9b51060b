/**
 * A2A with OAuth configured, against a real authorization server on loopback: the agent card
 * offers a bearer token beside the API key (1.0 and 0.3 shapes) and says where the authorization
 * server is named; the SDK's client, sending a token that server issued, remembers and recalls as
 * the agent the token names; without OAuth the card offers the key alone.
 */
import { AgentCard, type Message } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import type { MemoryNode, RecallResult } from '../../src/core/entities.js';
import { startAuthorizationServer, type AuthorizationServer } from '../support/authorization-server.js';
import { a2aClient, data, dataOf, fetchWithBearer, sendRequest, startA2aServer, text, userMessage, type A2aTestServer } from '../support/a2a-server.js';

const PUBLIC_URL = 'http://127.0.0.1:8788';
const METADATA = `${PUBLIC_URL}/.well-known/oauth-protected-resource`;

let as: AuthorizationServer;
let server: A2aTestServer;

beforeAll(async () => {
  as = await startAuthorizationServer();
  const config = loadConfig({ HYPHAE_OAUTH_ISSUER: as.issuer, HYPHAE_PUBLIC_URL: PUBLIC_URL, HYPHAE_OAUTH_ALLOWED_TENANTS: 'acme' });
  if (config.oauth === undefined) throw new Error('OAuth is not configured');
  server = await startA2aServer({ a2a: true, oauth: config.oauth });
});

afterAll(async () => {
  await server?.close();
  await as?.close();
});

async function cardJson(baseUrl: string, version?: string): Promise<Record<string, unknown>> {
  const response = await fetch(`${baseUrl}/.well-known/agent-card.json`, { headers: version === undefined ? {} : { 'a2a-version': version } });
  expect(response.status).toBe(200);
  return (await response.json()) as Record<string, unknown>;
}

describe('A2A with OAuth configured', () => {
  it('offers a bearer token beside the API key, naming the issuer and the protected-resource metadata', async () => {
    const card = AgentCard.fromJSON(await cardJson(server.baseUrl, '1.0'));
    const bearer = card.securitySchemes.hyphaeOAuth?.scheme;
    expect(bearer?.$case).toBe('httpAuthSecurityScheme');
    if (bearer?.$case !== 'httpAuthSecurityScheme') return;
    expect(bearer.value).toMatchObject({ scheme: 'Bearer', bearerFormat: 'JWT' });
    expect(bearer.value.description).toContain(as.issuer);
    expect(bearer.value.description).toContain(METADATA);
    expect(card.securitySchemes.hyphaeApiKey?.scheme?.$case).toBe('apiKeySecurityScheme');
    // Any credential is enough: alternatives, not one requirement naming them all.
    expect(card.securityRequirements).toEqual([
      { schemes: { hyphaeApiKey: { list: [] } } },
      { schemes: { hyphaeApiKeyBearer: { list: [] } } },
      { schemes: { hyphaeOAuth: { list: [] } } },
    ]);

    const legacy = await cardJson(server.baseUrl);
    expect(legacy).toMatchObject({
      securitySchemes: {
        hyphaeApiKey: { type: 'apiKey' },
        hyphaeApiKeyBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'Hyphae API key' },
        hyphaeOAuth: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
      },
      security: [{ hyphaeApiKey: [] }, { hyphaeApiKeyBearer: [] }, { hyphaeOAuth: [] }],
    });
  });

  it('remembers and recalls through the SDK client with an access token, as the agent the token names', async () => {
    as.signInAs = { sub: 'carol', claims: { hyphae_tenant: 'acme' } };
    const { accessToken } = await as.obtainAccessToken({ resource: PUBLIC_URL, scope: 'hyphae:read hyphae:write' });
    const client = await a2aClient(server.baseUrl, undefined, fetchWithBearer(accessToken));
    const content = 'Carol reached the A2A endpoint with an OAuth access token';
    const stored = dataOf((await client.sendMessage(sendRequest(userMessage([data({ skill: 'remember', content, cell_type: 'Fact' })])))) as Message) as MemoryNode;
    expect(stored.content).toBe(content);
    expect(stored.source_agent).toBe('carol');
    const recalled = dataOf((await client.sendMessage(sendRequest(userMessage([text(content)])))) as Message) as RecallResult;
    expect(recalled.results[0]?.node_id).toBe(stored.node_id);
  });
});

describe('A2A without OAuth', () => {
  it('offers the API key alone, in its header or as a bearer token', async () => {
    const plain = await startA2aServer({ a2a: true });
    try {
      const card = AgentCard.fromJSON(await cardJson(plain.baseUrl, '1.0'));
      expect(Object.keys(card.securitySchemes)).toEqual(['hyphaeApiKey', 'hyphaeApiKeyBearer']);
      expect(card.securityRequirements).toEqual([{ schemes: { hyphaeApiKey: { list: [] } } }, { schemes: { hyphaeApiKeyBearer: { list: [] } } }]);
      expect((await cardJson(plain.baseUrl)).security).toEqual([{ hyphaeApiKey: [] }, { hyphaeApiKeyBearer: [] }]);
    } finally {
      await plain.close();
    }
  });
});
