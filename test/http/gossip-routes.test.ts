/**
 * The REST routes made for the web console, on what `hyphae serve` runs: GET /v1/me, the gossip
 * listings and the live gossip stream (SSE) — its refusals as JSON errors, its events as the
 * OpenAPI document describes them, a reader confined to its own inbox, and a revoked key's stream ended.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gossipEventSchema, identitySchema } from '../../src/core/console-schemas.js';
import { startConsoleServer, type ConsoleServer } from '../support/console-server.js';
import { createTestDb } from '../support/test-db.js';
import { openSse, type SseConnection } from '../support/sse-client.js';
import { waitFor } from '../support/wait-for.js';

describe('the console REST routes', () => {
  let server: ConsoleServer;
  const streams: SseConnection[] = [];
  const stream = async (agent: keyof ConsoleServer['keys'], query = ''): Promise<SseConnection> => {
    const connection = await openSse(`${server.url}/v1/gossip/stream${query}`, { 'x-hyphae-key': server.keys[agent].key });
    streams.push(connection);
    return connection;
  };

  beforeAll(async () => {
    server = await startConsoleServer({ openDb: createTestDb });
    await server.rest('bob', 'POST', '/v1/beacons', { text: 'incident postmortem findings', threshold: 0.2 });
    await server.rest('carol', 'POST', '/v1/beacons', { text: 'quarterly budget numbers', threshold: 0.2 });
  });
  afterAll(async () => {
    for (const connection of streams) connection.close();
    await server?.close();
  });

  it('GET /v1/me answers the calling key, and 401 without one', async () => {
    const me = identitySchema.parse(await server.rest('carol', 'GET', '/v1/me'));
    expect(me).toMatchObject({ tenant: 'default', agent: 'carol', roles: ['reader'], key_id: server.keys.carol.key_id });
    expect((await fetch(`${server.url}/v1/me`)).status).toBe(401);
  });

  it('refuses a stream with the usual JSON errors before anything is streamed', async () => {
    const anonymous = await fetch(`${server.url}/v1/gossip/stream`, { headers: { accept: 'text/event-stream' } });
    expect(anonymous.status).toBe(401);
    const foreign = await fetch(`${server.url}/v1/gossip/stream?recipient=bob`, { headers: { 'x-hyphae-key': server.keys.carol.key } });
    expect(foreign.status).toBe(403);
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('FORBIDDEN');
    const invalid = await fetch(`${server.url}/v1/gossip/stream?recipient=${encodeURIComponent('no spaces')}`, { headers: { 'x-hyphae-key': server.keys.admin.key } });
    expect(invalid.status).toBe(400);
  });

  it('streams each delivery as it is stored: all of them to an admin, one recipient’s when asked, a reader only its own', async () => {
    const everything = await stream('admin');
    const bobOnly = await stream('admin', '?recipient=bob');
    const carolOwn = await stream('carol');
    expect(everything.status).toBe(200);
    expect(everything.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    await server.rest('alice', 'POST', '/v1/cells', { content: 'Incident postmortem findings: the cache stampede', cell_type: 'Lesson', salience: 0.9 });
    await server.rest('alice', 'POST', '/v1/cells', { content: 'Quarterly budget numbers for the platform team', cell_type: 'Fact', salience: 0.9 });
    await waitFor(() => everything.events.length === 2 && bobOnly.events.length === 1 && carolOwn.events.length === 1);
    const events = everything.events.map((event) => gossipEventSchema.parse(JSON.parse(event.data)));
    expect(everything.events.map((event) => event.event)).toEqual(['gossip', 'gossip']);
    expect(events.map((event) => `${event.diff.source_agent}→${event.recipient_agent}`)).toEqual(['alice→bob', 'alice→carol']);
    expect(gossipEventSchema.parse(JSON.parse(bobOnly.events[0]?.data ?? '')).recipient_agent).toBe('bob');
    expect(gossipEventSchema.parse(JSON.parse(carolOwn.events[0]?.data ?? '')).diff.preview).toContain('Quarterly budget');
  });

  it('lists agents and recent deliveries under the same rules', async () => {
    const agents = await server.rest<{ agents: { agent: string; beacons: unknown[] }[] }>('admin', 'GET', '/v1/gossip/agents');
    expect(agents.agents.map((agent) => [agent.agent, agent.beacons.length])).toEqual([
      ['alice', 0],
      ['bob', 1],
      ['carol', 1],
      ['console-admin', 0],
    ]);
    const own = await server.rest<{ events: { recipient_agent: string }[] }>('carol', 'GET', '/v1/gossip/events');
    expect(own.events.map((event) => event.recipient_agent)).toEqual(['carol']);
    const quotas = await server.rest<{ quotas: { quota: string; scope: string; used: number }[] }>('admin', 'GET', '/v1/admin/quotas');
    expect(quotas.quotas.find((quota) => quota.quota === 'live_streams_per_key')?.used).toBe(2);
    expect((await fetch(`${server.url}/v1/admin/quotas`, { headers: { 'x-hyphae-key': server.keys.carol.key } })).status).toBe(403);
  });

  it('ends the stream of a key that is revoked', async () => {
    const doomed = await server.hyphae.keyAdmin.createKey({ tenant: 'default', agent: 'doomed', roles: ['admin'], projects: ['*'] });
    const connection = await openSse(`${server.url}/v1/gossip/stream`, { 'x-hyphae-key': doomed.key });
    streams.push(connection);
    expect(connection.status).toBe(200);
    await server.rest('admin', 'DELETE', `/v1/admin/keys/${doomed.key_id}`);
    await connection.ended;
  });
});
