/**
 * Live streams are a quota (docs/security.md): one key opened 50 SSE streams and, with its beacons, made
 * every request of every tenant wait. Now a key holds at most maxStreamsPerKey streams and the
 * process maxStreamsPerProcess — one more is 429 with Retry-After — and a revoked key's open
 * streams end: at once where it was revoked, within a revocation check on another replica.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Principal } from '../../src/core/principal.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { createMemoryFacade, type ManagedMemoryFacade } from '../../src/service/index.js';
import { STREAM_QUOTA_RETRY_SECONDS } from '../../src/service/gossip/live-stream-registry.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { callTool, startMeshReplica, type MeshReplica } from '../support/mesh/mesh-replica.js';
import { openSse, type SseConnection } from '../support/sse-client.js';
import { waitFor } from '../support/wait-for.js';

const INTEREST = 'the nightly backup job skipped the audit tables';
const PER_KEY = 2;
const PER_PROCESS = 3;

describe('live stream quotas and revocation (GET /mcp)', () => {
  let embedder: Embedder;
  let replica: MeshReplica;
  /** Another replica's facade on the same database: revocations made there reach this one by its check. */
  let elsewhere: ManagedMemoryFacade;
  let admin: Principal;
  const keys: Record<string, { key: string; id: string }> = {};
  const streams: SseConnection[] = [];
  /** The streams the tests go on with, by name. */
  const held: Record<string, SseConnection> = {};

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    const db = await createMeshTestDb(embedder.dimension);
    replica = await startMeshReplica({
      name: 'quota',
      db,
      bus: new MemoryBus(),
      embedder,
      facade: { maxStreamsPerKey: PER_KEY, maxStreamsPerProcess: PER_PROCESS, streamRevocationCheckMs: 50 },
    });
    elsewhere = createMemoryFacade({ db, embedder, authCacheTtlMs: 0 });
    const admin_ = createKeyAdministration(db);
    for (const [name, agent, roles] of [
      ['admin', 'admin', ['admin']],
      ['a', 'reader', ['reader']],
      ['b', 'reader', ['reader']],
      ['c', 'reader', ['reader']],
      ['writer', 'writer', ['writer']],
    ] as const) {
      const created = await admin_.createKey({ tenant: 'acme', agent, roles: [...roles] });
      keys[name] = { key: created.key, id: created.key_id };
    }
    admin = await elsewhere.authenticate(keys.admin?.key ?? '');
    await callTool(replica.url, keys.a?.key ?? '', 'place_beacon', { text: INTEREST, threshold: 0.5 });
  });

  afterAll(async () => {
    for (const stream of streams) stream.close();
    await elsewhere?.close();
    await replica?.close();
    await embedder?.close();
  });

  async function open(name: string): Promise<SseConnection> {
    const stream = await openSse(`${replica.url}/mcp`, { 'x-hyphae-key': keys[name]?.key ?? '' });
    streams.push(stream);
    return stream;
  }

  it('a key past its quota, then the process past its own, gets 429 RATE_LIMITED with Retry-After; a closed stream frees its slot', async () => {
    const first = await open('a');
    const second = await open('a');
    expect([first.status, second.status]).toEqual([200, 200]);
    const overKey = await open('a');
    expect(overKey.status).toBe(429);
    expect(overKey.headers.get('retry-after')).toBe(String(STREAM_QUOTA_RETRY_SECONDS));
    // Same agent, another key: its own quota; the process now holds its limit of three.
    held.b = await open('b');
    expect(held.b.status).toBe(200);
    const overProcess = await open('c');
    expect(overProcess.status).toBe(429);
    expect(overProcess.headers.get('retry-after')).toBe(String(STREAM_QUOTA_RETRY_SECONDS));
    expect(replica.facade.openLiveStreams).toBe(PER_PROCESS);

    held.a = second;
    first.close();
    await waitFor(() => replica.facade.openLiveStreams === PER_PROCESS - 1);
    expect((await open('c')).status).toBe(200);
  });

  it('revoking a key on this replica ends its open streams at once; other keys of the agent keep theirs', async () => {
    await replica.facade.revokeKey(await replica.facade.authenticate(keys.admin?.key ?? ''), keys.a?.id ?? '');
    await held.a?.ended;
    await callTool(replica.url, keys.writer?.key ?? '', 'store', { content: INTEREST, cell_type: 'Risk', salience: 0.9 });
    // Key b belongs to the same agent: its stream hears the diff the revoked one no longer can.
    await waitFor(() => (held.b?.events.length ?? 0) === 1);
    expect(held.a?.events).toEqual([]);
    await waitFor(() => replica.facade.openLiveStreams === 2);
  });

  it('a key revoked on another replica: its streams here end within one revocation check', async () => {
    await elsewhere.revokeKey(admin, keys.b?.id ?? '');
    await held.b?.ended;
    await waitFor(() => replica.facade.openLiveStreams === 1);
    expect((await open('b')).status).toBe(401);
  });
});
