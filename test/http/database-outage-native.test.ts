/**
 * A real `hyphae serve` (bin/hyphae.js) on a native PostgreSQL that crashes (`pg_ctl stop -m
 * immediate`) and is restarted (`-m fast`) while eight clients keep storing. Every answer is a
 * 201 or a 503 UNAVAILABLE with Retry-After (never a 500, never a hang), MCP answers the JSON-RPC
 * UNAVAILABLE error, /readyz says 503 while the database is down and 200 after without a process
 * restart, and every store that was acknowledged is there afterwards, once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { StopMode } from '../support/real-postgres.js';
import { cliEnv, startServer } from '../support/cli-process.js';
import type { RunningServer } from '../support/cli-process.js';
import { skipWithoutPostgres, startSharedDatabase } from '../support/shared-database.js';
import type { SharedDatabase } from '../support/shared-database.js';
import { waitFor } from '../support/wait-for.js';

interface StoreAnswer {
  readonly status: number;
  readonly content: string;
  readonly cellId?: string;
  readonly code?: string;
  readonly retryAfter: string | null;
}

const CLIENTS = 8;

describe.skipIf(skipWithoutPostgres())('hyphae serve through database crashes and restarts', () => {
  let database: SharedDatabase;
  let server: RunningServer;
  let key: string;

  beforeAll(async () => {
    database = await startSharedDatabase();
    // hash: this test is about the database; the default model would only slow every store down.
    const env = cliEnv({ HYPHAE_DATABASE_URL: database.url, HYPHAE_PORT: '0', HYPHAE_EMBEDDER: 'hash', HYPHAE_DB_ACQUIRE_TIMEOUT_MS: '1000' });
    server = await startServer([], env);
    key = (await createKeyAdministration(await database.connect(1)).createKey({ tenant: 'acme', agent: 'loader' })).key;
  });

  afterAll(async () => {
    await server?.stop();
    await database?.close();
  });

  const headers = (): Record<string, string> => ({ 'content-type': 'application/json', 'x-hyphae-key': key });

  const store = async (content: string): Promise<StoreAnswer> => {
    const response = await fetch(`${server.url}/v1/cells`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ content, cell_type: 'Fact', salience: 0.5 }),
    });
    const body = (await response.json()) as { node_id?: string; error?: { code: string } };
    return {
      status: response.status,
      content,
      retryAfter: response.headers.get('retry-after'),
      ...(body.node_id === undefined ? {} : { cellId: body.node_id }),
      ...(body.error === undefined ? {} : { code: body.error.code }),
    };
  };

  const readiness = async (): Promise<{ status: number; failing: string[] }> => {
    const response = await fetch(`${server.url}/readyz`);
    return { status: response.status, failing: ((await response.json()) as { failing: string[] }).failing };
  };

  it('answers 201 or 503 + Retry-After throughout, reports readiness, and loses no acknowledged store', async () => {
    const answers: StoreAnswer[] = [];
    let loading = true;
    const clients = Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = 0; loading; i += 1) answers.push(await store(`client ${client} note ${i}`));
    });
    const stored = (): number => answers.filter((a) => a.status === 201).length;
    const refused = (): number => answers.filter((a) => a.status === 503).length;

    try {
      for (const mode of ['immediate', 'fast'] satisfies StopMode[]) {
        const before = stored();
        await waitFor(() => stored() >= before + 40);
        const refusedBefore = refused();
        await database.server.stop(mode);

        expect(await readiness()).toEqual({ status: 503, failing: ['database'] });
        const rpc = await fetch(`${server.url}/mcp`, {
          method: 'POST',
          headers: { ...headers(), accept: 'application/json' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'store', arguments: { content: 'during the outage', cell_type: 'Fact' } } }),
        });
        const answer = (await rpc.json()) as { error?: { code: number; data: { code: string; retry_after_seconds: number } } };
        expect(answer.error).toMatchObject({ code: -32007, data: { code: 'UNAVAILABLE', retry_after_seconds: 1 } });
        // The clients wait out the acquire timeout, then are refused.
        await waitFor(() => refused() > refusedBefore);

        await database.server.start();
        await waitFor(async () => (await readiness()).status === 200);
        expect(await readiness()).toEqual({ status: 200, failing: [] });
      }
      const after = stored();
      await waitFor(() => stored() >= after + 40);
    } finally {
      loading = false;
      await Promise.all(clients);
    }

    expect(answers.filter((a) => a.status !== 201 && a.status !== 503)).toEqual([]);
    const refusals = answers.filter((a) => a.status === 503);
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.filter((a) => a.code !== 'UNAVAILABLE' || a.retryAfter !== '1')).toEqual([]);

    const acknowledged = answers.filter((a) => a.status === 201);
    const db = await database.connect(1);
    const { rows } = await db.query<{ node_id: string; content: string }>('SELECT node_id, content FROM cells WHERE node_id = ANY($1::uuid[])', [
      acknowledged.map((a) => a.cellId),
    ]);
    expect(new Map(rows.map((row) => [row.node_id, row.content]))).toEqual(new Map(acknowledged.map((a) => [a.cellId, a.content])));
    // Once each: a store answered 201 is never written twice.
    const { rows: copies } = await db.query<{ content: string; n: number }>(
      'SELECT content, count(*)::int AS n FROM cells WHERE content = ANY($1::text[]) GROUP BY content HAVING count(*) > 1',
      [acknowledged.map((a) => a.content)],
    );
    expect(copies).toEqual([]);
    const read = await fetch(`${server.url}/v1/cells/${acknowledged.at(-1)?.cellId ?? ''}`, { headers: headers() });
    expect(read.status).toBe(200);
  });
});
