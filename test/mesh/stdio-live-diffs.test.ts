import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import type { Diff } from '../../src/core/entities.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { DIFF_NOTIFICATION_METHOD } from '../../src/mcp/protocol/diff-extension.js';
import { runStdioServer } from '../../src/mcp/transports/stdio-server.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { callTool, startMeshReplica } from '../support/mesh/mesh-replica.js';
import type { MeshReplica } from '../support/mesh/mesh-replica.js';
import { waitFor } from '../support/wait-for.js';

const INTEREST = 'the nightly export job overruns its window';

describe('stdio MCP forwards live diffs as notifications on stdout', () => {
  let embedder: Embedder;
  let replica: MeshReplica;

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    replica = await startMeshReplica({ name: 'stdio', db: await createMeshTestDb(embedder.dimension), bus: new MemoryBus(), embedder });
  });

  afterAll(async () => {
    await replica?.close();
    await embedder?.close();
  });

  it('writes notifications/hyphae/diff lines, none before the initialize reply', async () => {
    const keys = createKeyAdministration(replica.db);
    const writerKey = (await keys.createKey({ tenant: 'acme', agent: 'writer' })).key;
    const reader = await replica.facade.authenticate((await keys.createKey({ tenant: 'acme', agent: 'reader' })).key);
    await replica.facade.placeBeacon(reader, { text: INTEREST, threshold: 0.5, include_own: false });

    const input = new PassThrough();
    const output = new PassThrough();
    const lines: Record<string, unknown>[] = [];
    let buffered = '';
    output.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8');
      const parts = buffered.split('\n');
      buffered = parts.pop() ?? '';
      for (const part of parts) lines.push(JSON.parse(part) as Record<string, unknown>);
    });
    const served = runStdioServer({ facade: replica.facade, principal: reader, input, output });
    await waitFor(() => replica.feed.openStreams === 1);

    const early = await callTool(replica.url, writerKey, 'store', { content: INTEREST, cell_type: 'Risk', salience: 0.8 });
    input.write(`${JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: { experimental: { 'hyphae/diffs': {} } }, clientInfo: { name: 't', version: '1' } } })}\n`);
    await waitFor(() => lines.length === 2);
    const late = await callTool(replica.url, writerKey, 'store', { content: `${INTEREST}, again`, cell_type: 'Task', salience: 0.8 });
    await waitFor(() => lines.length === 3);
    input.end();
    await served;

    expect(lines[0]).toMatchObject({ jsonrpc: '2.0', id: 1, result: { protocolVersion: '2025-06-18' } });
    const diffs = lines.slice(1).map((line) => {
      expect(line.method).toBe(DIFF_NOTIFICATION_METHOD);
      return (line.params as { diff: Diff }).diff;
    });
    expect(diffs.map((d) => d.node_id)).toEqual([early.node_id, late.node_id]);
    await waitFor(() => replica.feed.openStreams === 0);
  });
});
