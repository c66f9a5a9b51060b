/** The remote bridge with live diffs: what the server pushes on GET /mcp comes out on stdout as notifications. */
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { DIFF_NOTIFICATION_METHOD } from '../../src/mcp/protocol/diff-extension.js';
import { parseSseFrames } from '../../src/mcp/client/push-stream-reader.js';
import { runRemoteBridge } from '../../src/mcp/transports/remote-bridge.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { callTool, startMeshReplica } from '../support/mesh/mesh-replica.js';
import type { MeshReplica } from '../support/mesh/mesh-replica.js';
import { waitFor } from '../support/wait-for.js';

const INTEREST = 'connection pool exhaustion in the checkout service';

describe('parseSseFrames', () => {
  it('reads id, data and retry across chunks, skipping comments', () => {
    const frames: unknown[] = [];
    const rest = parseSseFrames('retry: 500\n: hello\n\nid: 3\nevent: message\ndata: {"a":1}\n\nid: 4\nda', (frame) => frames.push(frame));
    expect(frames).toEqual([{ retry: 500 }, { id: '3', data: '{"a":1}' }]);
    expect(rest).toBe('id: 4\nda');
  });
});

describe('remote bridge with live diffs', () => {
  let embedder: Embedder;
  let replica: MeshReplica;
  let writerKey: string;
  let readerKey: string;

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    const db = await createMeshTestDb(embedder.dimension);
    replica = await startMeshReplica({ name: 'bridge', db, bus: new MemoryBus(), embedder });
    const keys = createKeyAdministration(db);
    writerKey = (await keys.createKey({ tenant: 'acme', agent: 'writer' })).key;
    readerKey = (await keys.createKey({ tenant: 'acme', agent: 'reader' })).key;
    await callTool(replica.url, readerKey, 'place_beacon', { text: INTEREST, threshold: 0.5 });
  });
  afterAll(async () => {
    await replica?.close();
    await embedder?.close();
  });

  it('writes pushed diffs as notifications/hyphae/diff lines, after initialization only', async () => {
    const input = new PassThrough();
    const output = new PassThrough();
    const lines: Record<string, unknown>[] = [];
    let buffered = '';
    output.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      for (let newline = buffered.indexOf('\n'); newline !== -1; newline = buffered.indexOf('\n')) {
        lines.push(JSON.parse(buffered.slice(0, newline)) as Record<string, unknown>);
        buffered = buffered.slice(newline + 1);
      }
    });
    const done = runRemoteBridge({ url: `${replica.url}/mcp`, apiKey: readerKey, input, output, push: true });
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { experimental: { 'hyphae/diffs': {} } } } })}\n`);
    await waitFor(() => lines.length === 1);
    expect(replica.liveStream.openStreams).toBe(0);
    input.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' })}\n`);
    await waitFor(() => replica.liveStream.openStreams === 1);

    const stored = await callTool(replica.url, writerKey, 'store', { content: INTEREST, cell_type: 'Risk', salience: 0.8 });
    await waitFor(() => lines.some((line) => line.method === DIFF_NOTIFICATION_METHOD));
    const notification = lines.find((line) => line.method === DIFF_NOTIFICATION_METHOD) as { params: { diff: { node_id: string; source_agent: string } } };
    expect(notification.params.diff.node_id).toBe(stored.node_id);
    expect(notification.params.diff.source_agent).toBe('writer');

    input.end();
    await done;
    await waitFor(() => replica.liveStream.openStreams === 0);
  });
});
