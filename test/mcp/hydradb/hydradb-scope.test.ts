/**
 * The HydraDB toolset's connection and scope over HTTP (docs/coming-from-hydradb.md): 401 without a
 * credential, 400 without a database, 403 for another tenant's, GET /health open; a collection
 * outside the key's scope reads as a missing one; another tenant's item as one never made; and a
 * note saved with hydradb_ingest reaches the beacon owner it matches.
 */
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { HYPHAE_BIN, hyphaeEnv } from '../../support/mcp/sdk-clients.js';
import { createTestRuntime, type TestRuntime } from '../../support/test-runtime.js';
import { connectRemoteEntry, type HydraClient } from './hydradb-clients.js';
import { startHydraServer } from './hydradb-server.js';

const TENANT = 'scope-tenant';

describe('the HydraDB toolset’s connection and scope over HTTP', () => {
  let runtime: TestRuntime;
  let app: FastifyInstance;
  let base: URL;
  let key: string;
  let scopedKey: string;
  const clients: HydraClient[] = [];
  const endpoint = (): string => new URL('/mcp?toolset=hydradb', base).href;
  const connect = async (headers: Record<string, string>): Promise<HydraClient> => {
    const client = await connectRemoteEntry({ url: endpoint(), headers });
    clients.push(client);
    return client;
  };
  const post = (headers: Record<string, string>): Promise<Response> =>
    fetch(endpoint(), {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });

  beforeAll(async () => {
    runtime = await createTestRuntime();
    ({ app, base } = await startHydraServer(runtime.facade));
    ({ key } = await runtime.mintKey({ tenant: TENANT, agent: 'writer' }));
    ({ key: scopedKey } = await runtime.mintKey({ tenant: TENANT, agent: 'scoped', projects: ['alpha'], default_project: 'alpha' }));
  });
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close()));
    await app.close();
    await runtime.close();
  });

  it('answers 401 without a credential, 400 without a database, 403 for another tenant’s, and serves either key header', async () => {
    expect((await post({ 'x-hydradb-database': TENANT })).status).toBe(401);
    const missing = await post({ authorization: `Bearer ${key}` });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toMatchObject({ error: { data: { code: 'INVALID_ARGUMENT' } } });
    const foreign = await post({ authorization: `Bearer ${key}`, 'x-hydradb-database': 'another-tenant' });
    expect(foreign.status).toBe(403);
    expect(await foreign.json()).toMatchObject({ error: { data: { code: 'FORBIDDEN' } } });
    expect((await post({ 'x-hydradb-api-key': key, 'x-hydradb-database': TENANT })).status).toBe(200);
    expect((await post({ authorization: `Bearer ${key}`, 'x-hydradb-database': TENANT })).status).toBe(200);
    // Without the HydraDB toolset the same key needs no database, as before.
    const plain = await fetch(new URL('/mcp', base), { method: 'POST', headers: { 'content-type': 'application/json', 'x-hyphae-key': key }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }) });
    expect(plain.status).toBe(200);
    const health = await fetch(new URL('/health', base));
    expect(health.status).toBe(200);
  });

  it('refuses a collection outside the key’s scope exactly as one that does not exist', async () => {
    const scoped = await connect({ authorization: `Bearer ${scopedKey}`, 'x-hydradb-database': TENANT });
    const saved = await scoped.client.callTool({ name: 'hydradb_ingest', arguments: { text: 'Alpha ships Friday.', source_id: 'alpha-note', collection: 'alpha' } });
    expect(saved.structuredContent).toMatchObject({ project: 'alpha' });
    const refusals = [
      { name: 'hydradb_list', arguments: { kind: 'memory', collection: 'beta' } },
      { name: 'hydradb_query', arguments: { query: 'ships', collections: ['alpha', 'beta'] } },
      { name: 'hydradb_inspect', arguments: { id: 'alpha-note', collection: 'beta' } },
    ];
    for (const call of refusals) {
      await expect(scoped.client.callTool(call), call.name).rejects.toMatchObject({ data: { code: 'NOT_FOUND', kind: 'collection', id: 'beta' } });
    }
    const viaHeader = await connect({ authorization: `Bearer ${scopedKey}`, 'x-hydradb-database': TENANT, 'x-hydradb-collection': 'beta' });
    await expect(viaHeader.client.callTool({ name: 'hydradb_list', arguments: { kind: 'memory' } })).rejects.toMatchObject({ data: { code: 'NOT_FOUND', kind: 'collection' } });
    const listed = await scoped.client.callTool({ name: 'hydradb_list', arguments: { kind: 'memory', collection: 'alpha' } });
    expect(listed.structuredContent).toMatchObject({ total: 1, items: [{ id: 'alpha-note' }] });
  });

  it('reads another tenant’s item exactly as an id that was never used', async () => {
    const { key: otherKey } = await runtime.mintKey({ tenant: 'other-tenant', agent: 'other' });
    const other = await connect({ authorization: `Bearer ${otherKey}`, 'x-hydradb-database': 'other-tenant' });
    await other.client.callTool({ name: 'hydradb_ingest', arguments: { text: 'The other tenant’s secret.', source_id: 'secret-note' } });
    const mine = await connect({ authorization: `Bearer ${key}`, 'x-hydradb-database': TENANT });
    const answer = async (id: string): Promise<unknown> =>
      mine.client.callTool({ name: 'hydradb_inspect', arguments: { id } }).then(() => 'read', (error: { code: number; data: { code: string; kind: string } }) => [error.code, error.data.code, error.data.kind]);
    expect(await answer('secret-note')).toEqual(await answer('never-made-note'));
    expect(await answer('secret-note')).toEqual([-32003, 'NOT_FOUND', 'item']);
    await expect(mine.client.callTool({ name: 'hydradb_status', arguments: { ids: ['secret-note'] } })).resolves.toMatchObject({ structuredContent: { statuses: [{ state: 'not_found' }] } });
  });

  it('links to exactly one slice: readable without a key, refused once widened to another range or item', async () => {
    const mine = await connect({ authorization: `Bearer ${key}`, 'x-hydradb-database': TENANT });
    await mine.client.callTool({ name: 'hydradb_ingest', arguments: { text: 'First part. Second part.', source_id: 'linked-note' } });
    await mine.client.callTool({ name: 'hydradb_ingest', arguments: { text: 'Not linked.', source_id: 'unlinked-note' } });
    const answer = await mine.client.callTool({ name: 'hydradb_inspect', arguments: { id: 'linked-note', mode: 'both', offset: 0, limit: 11, expiry_seconds: 600 } });
    const { url, text, expires_at: expiresAt } = answer.structuredContent as { url: string; text: string; expires_at: string };
    expect(text).toBe('First part.');
    // The slice note leads the tool's text, so stored text cannot forge one after itself.
    const shown = (answer.content as { type: string; text: string }[])[0]?.text ?? '';
    expect(shown.startsWith('Characters 0–11 of 24; the rest from offset 11.\n\nDownload (until ')).toBe(true);
    expect(shown.endsWith('\n\nFirst part.')).toBe(true);
    expect(Date.parse(expiresAt) - Date.now()).toBeGreaterThan(500_000);
    const read = await fetch(url);
    expect(read.status).toBe(200);
    expect(await read.json()).toMatchObject({ source_id: 'linked-note', text: 'First part.', next_offset: 11 });
    const widened = (change: (target: URL) => void): string => {
      const target = new URL(url);
      change(target);
      return target.href;
    };
    const refused = [
      widened((target) => target.searchParams.set('limit', '20000')),
      widened((target) => target.searchParams.set('offset', '11')),
      widened((target) => target.searchParams.delete('limit')),
      widened((target) => (target.pathname = '/v1/sources/unlinked-note')),
      widened((target) => target.searchParams.set('project', 'other')),
      widened((target) => target.searchParams.set('link', `${target.searchParams.get('link') ?? ''}x`)),
    ];
    for (const target of refused) {
      const response = await fetch(target);
      expect(response.status, target).toBe(401);
      expect(JSON.stringify(await response.json())).not.toContain('Second part');
    }
    // The link opens the slice route only.
    const listing = new URL(url);
    listing.pathname = '/v1/sources';
    expect((await fetch(listing)).status).toBe(401);
  });

  it('serves the toolset through `hyphae mcp --remote URL --toolset hydradb`, the launch’s database sent as X-HydraDB-Database', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [HYPHAE_BIN, 'mcp', '--remote', base.href, '--toolset', 'hydradb'],
      env: hyphaeEnv({ HYDRADB_API_KEY: key, HYDRADB_DATABASE: TENANT }),
      stderr: 'pipe',
    });
    const bridged = new Client({ name: 'hydradb-bridge', version: '1.0.0' });
    await bridged.connect(transport);
    try {
      expect((await bridged.listTools()).tools.map((tool) => tool.name)).toContain('hydradb_query');
      const listed = await bridged.callTool({ name: 'hydradb_list', arguments: { kind: 'memory' } });
      expect(listed.isError).toBe(false);
    } finally {
      await bridged.close();
    }
  });

  it('gossips a note saved with hydradb_ingest to the beacon owner it matches', async () => {
    const listener = await runtime.principal({ tenant: TENANT, agent: 'listener' });
    await runtime.facade.placeBeacon(listener, { text: 'database migration rollback plan', threshold: 0.2, include_own: false });
    const writer = await connect({ authorization: `Bearer ${key}`, 'x-hydradb-database': TENANT });
    const saved = await writer.client.callTool({
      name: 'hydradb_ingest',
      arguments: { text: 'Rollback plan for the database migration: restore the snapshot, then replay the outbox.', title: 'Migration rollback', source_id: 'rollback-note' },
    });
    expect(saved.structuredContent).toMatchObject({ id: 'rollback-note', state: 'ready' });
    const inbox = await runtime.facade.drainInbox(listener, { page_size: 50 });
    const heard = inbox.diffs.filter((diff) => diff.source_id === 'rollback-note');
    expect(heard).toHaveLength(1);
    expect(heard[0]).toMatchObject({ op: 'created', source_agent: 'writer', preview: 'Migration rollback' });
  });
});
