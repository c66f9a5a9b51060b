/**
 * `hyphae serve`'s HTTP app with A2A on (or off), on a loopback port, over a real core: a
 * template-cloned PGlite, the hash embedder, the outbox relay and live diff feed on an in-process
 * bus — the feed the MCP and REST live streams use — and the SDK's own A2A client.
 */
import { Role, type Message, type Part, type SendMessageRequest } from '@a2a-js/sdk';
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import type { FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Role as HyphaeRole } from '../../src/core/cell-types.js';
import type { OAuthConfig } from '../../src/core/oauth-config.js';
import type { Principal } from '../../src/core/principal.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import { buildSurfacesApp } from '../../src/cli/serve-app.js';
import { resolveHttpConfig } from '../../src/http/http-config.js';
import { createHyphaeMetrics, type HyphaeMetrics } from '../../src/metrics/index.js';
import { LiveDiffFeed } from '../../src/mesh/live-diff-feed.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { OutboxRelay } from '../../src/mesh/outbox-relay.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../../src/service/index.js';
import { createTestDb } from './test-db.js';

export interface A2aTestServer {
  readonly baseUrl: string;
  readonly app: FastifyInstance;
  readonly facade: ManagedMemoryFacade;
  readonly metrics: HyphaeMetrics;
  /** Mints a key; returns it and the principal it resolves to. */
  mintKey(tenant: string, agent: string, roles?: HyphaeRole[]): Promise<{ key: string; principal: Principal }>;
  close(): Promise<void>;
}

export async function startA2aServer(options: { readonly a2a?: boolean; readonly oauth?: OAuthConfig } = {}): Promise<A2aTestServer> {
  const embedder = await createEmbedder({ kind: 'hash' });
  const db = await createTestDb({ modelId: embedder.modelId, dimension: embedder.dimension });
  const bus = new MemoryBus();
  const relay = new OutboxRelay({ db, bus, pollIntervalMs: 100 });
  const feed = new LiveDiffFeed({ db, bus });
  const facade = createMemoryFacade({
    db,
    embedder,
    authCacheTtlMs: 0,
    outbox: relay,
    diffFeed: feed,
    onBeaconsChanged: (tenantId, agent) => void feed.beaconsChanged(tenantId, agent),
    config: { hitFlushIntervalMs: 3_600_000 },
    ...(options.oauth === undefined ? {} : { oauth: options.oauth }),
  });
  const metrics = createHyphaeMetrics();
  const { app } = await buildSurfacesApp({
    facade,
    config: resolveHttpConfig({
      rateLimitPerMinute: 1_000_000,
      failedAuthPerMinute: 1_000_000,
      ...(options.a2a === undefined ? {} : { a2a: options.a2a }),
      ...(options.oauth === undefined ? {} : { oauth: options.oauth }),
    }),
    readiness: [],
    metrics,
    logger: false,
    version: '0.0.0-test',
  });
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 });
  relay.start();
  const keys = createKeyAdministration(db);
  return {
    baseUrl,
    app,
    facade,
    metrics,
    async mintKey(tenant, agent, roles = ['writer']) {
      const created = await keys.createKey({ tenant, agent, roles });
      return { key: created.key, principal: await facade.authenticate(created.key) };
    },
    async close(): Promise<void> {
      await app.close();
      await relay.stop();
      await feed.close();
      await facade.close();
      await bus.close();
      await db.close();
      await embedder.close();
    },
  };
}

/** A fetch that sends one header on every request, as an A2A client configured for this card would. */
function fetchWithHeader(name: string, value: string | undefined): typeof fetch {
  return (input, init) => {
    const headers = new Headers(init?.headers);
    if (value !== undefined) headers.set(name, value);
    return fetch(input, { ...init, headers });
  };
}

export function fetchWithKey(key: string | undefined): typeof fetch {
  return fetchWithHeader('x-hyphae-key', key);
}

export function fetchWithBearer(token: string): typeof fetch {
  return fetchWithHeader('authorization', `Bearer ${token}`);
}

/** The SDK's client, from the agent card at `baseUrl`, over JSON-RPC, sending a key (or what `fetchImpl` sends). */
export async function a2aClient(baseUrl: string, key: string | undefined, fetchImpl: typeof fetch = fetchWithKey(key)): Promise<Client> {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl }),
    }),
  );
  return factory.createFromUrl(baseUrl);
}

export function text(value: string): Part {
  return { content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

/** The data part of an answer (the stored node, the recall result). */
export function dataOf(message: Message): unknown {
  const part = message.parts.find((p) => p.content?.$case === 'data');
  return part?.content?.$case === 'data' ? part.content.value : undefined;
}

export function data(value: unknown): Part {
  return { content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

export function userMessage(parts: Part[], metadata?: Record<string, unknown>): Message {
  return { messageId: randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, parts, metadata, extensions: [], referenceTaskIds: [] };
}

export function sendRequest(message: Message): SendMessageRequest {
  return { tenant: '', message, configuration: undefined, metadata: undefined };
}

/** The JSON-RPC code an SDK client error carries. */
export function rpcCodeOf(error: unknown): number | undefined {
  const code = (error as { envelopeCode?: unknown }).envelopeCode;
  return typeof code === 'number' ? code : undefined;
}
