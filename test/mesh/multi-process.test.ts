/**
 * The gossip story with real processes: two `hyphae serve` replicas (bin/hyphae.js) sharing one
 * native PostgreSQL with pgvector and one real nats-server.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Diff } from '../../src/core/entities.js';
import type { Db } from '../../src/store/db.js';
import { cliEnv, startServer } from '../support/cli-process.js';
import type { RunningServer } from '../support/cli-process.js';
import { skipWithoutNatsServer, startNatsServer } from '../support/nats-server.js';
import type { NatsServer } from '../support/nats-server.js';
import { callTool } from '../support/mesh/mesh-replica.js';
import { skipWithoutPostgres, startSharedDatabase } from '../support/shared-database.js';
import type { SharedDatabase } from '../support/shared-database.js';
import { openSse } from '../support/sse-client.js';
import type { SseConnection } from '../support/sse-client.js';
import { waitFor } from '../support/wait-for.js';

const TENANT = 'acme';
const INTEREST = 'the payment gateway retries must be idempotent';
const seqsOf = (sse: SseConnection): number[] => sse.events.map((e) => (JSON.parse(e.data) as { params: { diff: Diff } }).params.diff.seq);
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe.skipIf(skipWithoutNatsServer() || skipWithoutPostgres())('two `hyphae serve` processes over a real nats-server', () => {
  let nats: NatsServer;
  let database: SharedDatabase;
  let db: Db;
  const servers: RunningServer[] = [];
  const streams: SseConnection[] = [];
  const keys: Record<string, string> = {};

  beforeAll(async () => {
    nats = await startNatsServer();
    database = await startSharedDatabase();
    const env = cliEnv({ HYPHAE_DATABASE_URL: database.url, HYPHAE_NATS_URL: nats.url, HYPHAE_PORT: '0' });
    // One after the other: the first start migrates the shared database.
    servers.push(await startServer([], env));
    servers.push(await startServer([], env));
    db = await database.connect(2);
    const admin = createKeyAdministration(db);
    for (const agent of ['writer', 'reader']) keys[agent] = (await admin.createKey({ tenant: TENANT, agent })).key;
  });

  afterAll(async () => {
    for (const sse of streams) sse.close();
    await Promise.all(servers.map((server) => server.stop()));
    await database?.close();
    await nats?.stop();
  });

  it('a store on process A lands in the inbox of, and is pushed live to, the beacon owner on process B; NATS killed mid-burst loses nothing', async () => {
    const [a, b] = servers as [RunningServer, RunningServer];
    await callTool(b.url, keys.reader ?? '', 'place_beacon', { text: INTEREST, threshold: 0.5 });
    const live = await openSse(`${b.url}/mcp`, { 'x-hyphae-key': keys.reader ?? '' });
    streams.push(live);
    expect(live.status).toBe(200);

    const total = 30;
    for (let i = 0; i < total; i += 1) {
      if (i === 10) await nats.stop();
      if (i === 20) await nats.start();
      const on = i % 2 === 0 ? a : b;
      await callTool(on.url, keys.writer ?? '', 'store', { content: `${INTEREST} (${i})`, cell_type: 'Decision', salience: 0.9 });
    }

    const inbox = (await callTool(b.url, keys.reader ?? '', 'drain_inbox', { page_size: 500 })) as { diffs: Diff[] };
    expect(inbox.diffs.map((d) => d.seq)).toEqual(range(1, total));
    await waitFor(() => live.events.length >= total);
    expect(seqsOf(live)).toEqual(range(1, total));
    expect(live.events.map((e) => e.id)).toEqual(range(1, total).map(String));

    // Resume on the other process after the 25th event: exactly the last five.
    const resumed = await openSse(`${a.url}/mcp`, { 'x-hyphae-key': keys.reader ?? '', 'last-event-id': '25' });
    streams.push(resumed);
    await waitFor(() => resumed.events.length >= 5);
    expect(seqsOf(resumed)).toEqual(range(26, 30));

    const metrics = await (await fetch(`${b.url}/metrics`)).text();
    expect(metrics).toMatch(/^hyphae_live_streams 1$/m);
    expect(metrics).toMatch(/^hyphae_diffs_delivered_total\{transport="sse"\} 30$/m);
  });
});
