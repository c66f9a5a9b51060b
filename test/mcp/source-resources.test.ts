/**
 * Sources as MCP resources (docs/sources.md, docs/mcp.md) with the official SDK client over
 * Streamable HTTP: hyphae://sources/{source_id} read whole or slice by slice (code points, so
 * multi-byte text concatenates back exactly), the template listed, another tenant's source and
 * an out-of-scope project read as not found, a recalled chunk's resource_link resolving to
 * exactly the chunk's text, and hyphae://sources/{source_id}/chunks paging through the chunks.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CallToolResultSchema, ReadResourceResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryNode } from '../../src/core/entities.js';
import type { Principal } from '../../src/core/principal.js';
import { handbook } from '../support/source-fixtures.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';
import { startMcpHttpServer, type ListeningMcpServer } from './mcp-http-server.js';
import { connectHttp, type ConnectedClient } from '../support/mcp/sdk-clients.js';

interface Content {
  readonly uri: string;
  readonly mimeType: string;
  readonly text: string;
}

interface SliceFields {
  readonly source_id: string;
  readonly project: string;
  readonly offset: number;
  readonly total_chars: number;
  readonly next_offset: number | null;
  readonly next_uri: string | null;
}

async function read(client: Client, uri: string): Promise<{ contents: Content[]; fields: SliceFields }> {
  const result = ReadResourceResultSchema.parse(await client.readResource({ uri }));
  const contents = result.contents as Content[];
  expect(contents[0]).toMatchObject({ uri, mimeType: 'text/plain' });
  expect(contents[1]).toMatchObject({ uri, mimeType: 'application/json' });
  return { contents, fields: JSON.parse(contents[1]?.text ?? 'null') as SliceFields };
}

/** A reply as data: the same for two URIs when their errors differ only by the URI they echo. */
async function failure(client: Client, uri: string): Promise<unknown> {
  return client.readResource({ uri }).then(
    () => 'read',
    (error: { code: number; message: string; data?: unknown }) => [error.code, error.message.replace(uri, 'URI'), JSON.stringify(error.data ?? null).replace(JSON.stringify(uri), '"URI"')],
  );
}

/** ASCII, accented Latin, CJK, astral emoji (two UTF-16 units) and a combining mark, repeated to `points` code points. */
function multiByteText(points: number): string {
  const unit = Array.from('Kiln log — température élevée 窯の温度 🔥🧪 e\u0301 ok.\n\n');
  return Array.from({ length: points }, (_, i) => unit[i % unit.length]).join('');
}

describe('sources as MCP resources', () => {
  let runtime: TestRuntime;
  let server: ListeningMcpServer;
  let alice: ConnectedClient;
  let mallory: ConnectedClient;
  let narrow: ConnectedClient;
  let principal: Principal;

  beforeAll(async () => {
    runtime = await createTestRuntime();
    server = await startMcpHttpServer(runtime.facade);
    const minted = await runtime.mintKey({ tenant: 'acme', agent: 'alice' });
    principal = minted.principal;
    alice = await connectHttp(server.url, minted.key, '2025-11-25');
    mallory = await connectHttp(server.url, (await runtime.mintKey({ tenant: 'evil', agent: 'mallory' })).key, '2025-11-25');
    narrow = await connectHttp(server.url, (await runtime.mintKey({ tenant: 'acme', agent: 'narrow', projects: ['elsewhere'] })).key, '2025-11-25');
  });

  afterAll(async () => {
    await Promise.all([alice, mallory, narrow].map((c) => c?.close()));
    await server?.close();
    await runtime?.close();
  });

  it('lists the source template beside the cell template; the tools keep their names and required arguments', async () => {
    const { resourceTemplates } = await alice.client.listResourceTemplates();
    expect(resourceTemplates.map((template) => [template.uriTemplate, template.mimeType])).toEqual([
      ['hyphae://cells/{node_id}', 'text/markdown'],
      ['hyphae://sources/{source_id}{?offset,limit,project}', 'text/plain'],
      ['hyphae://cells/{node_id}/subgraph{?depth,max_members,as_of}', 'application/json'],
      ['hyphae://sources/{source_id}/chunks{?version,limit,cursor,project}', 'text/markdown'],
    ]);
    const { tools } = await alice.client.listTools();
    expect(tools.map((tool) => [tool.name, tool.inputSchema.required ?? []])).toEqual([
      ['store', ['content', 'cell_type']],
      ['recall', ['query']],
      ['query', ['query', 'layer']],
      ['open_session', ['project']],
      ['close_session', ['session_id']],
      ['place_beacon', ['text']],
      ['list_beacons', []],
      ['pull_diffs', ['since']],
      ['get_scene', ['scene_id']],
      ['list_scenes', []],
      ['drain_inbox', []],
    ]);
  });

  it('reads a source that fits one slice whole, in two items and no continuation line', async () => {
    const text = multiByteText(3_000);
    await runtime.facade.ingestSource(principal, { text, source_id: 'whole' });
    const { contents, fields } = await read(alice.client, 'hyphae://sources/whole');
    expect(contents).toHaveLength(2);
    expect(contents[0]?.text).toBe(text);
    expect(fields).toMatchObject({ source_id: 'whole', project: 'default', offset: 0, total_chars: 3_000, next_offset: null, next_uri: null });
    expect(fields).not.toHaveProperty('text');
    await runtime.facade.ingestSource(principal, { text: 'Glaze notes.', source_id: 'whole', project: 'team/kilns' });
    for (const uri of ['hyphae://sources/whole?project=team%2Fkilns', 'hyphae://sources/whole?project=team/kilns']) {
      expect((await read(alice.client, uri)).contents[0]?.text).toBe('Glaze notes.');
    }
  });

  it('reads a longer source as its first slice naming the next, and slice by slice back to the exact text', async () => {
    const text = multiByteText(45_001);
    await runtime.facade.ingestSource(principal, { text, source_id: 'long.doc:v1', title: 'Long log' });
    const first = await read(alice.client, 'hyphae://sources/long.doc:v1');
    expect(Array.from(first.contents[0]?.text ?? '')).toHaveLength(20_000);
    expect(first.fields).toMatchObject({ total_chars: 45_001, next_offset: 20_000, next_uri: 'hyphae://sources/long.doc:v1?offset=20000&limit=20000&project=default' });
    expect(first.contents).toHaveLength(3);
    expect(first.contents[2]).toMatchObject({ mimeType: 'text/plain' });
    expect(first.contents[2]?.text).toContain('hyphae://sources/long.doc:v1?offset=20000&limit=20000&project=default');

    for (const start of ['hyphae://sources/long.doc:v1', 'hyphae://sources/long.doc:v1?limit=7001&project=default']) {
      let uri: string | null = start;
      let joined = '';
      let reads = 0;
      while (uri !== null) {
        const slice = await read(alice.client, uri);
        joined += slice.contents[0]?.text ?? '';
        uri = slice.fields.next_uri;
        reads += 1;
      }
      expect(joined).toBe(text);
      expect(reads).toBe(start.includes('limit=7001') ? 7 : 3);
    }
    const middle = await read(alice.client, 'hyphae://sources/long.doc:v1?project=default&offset=19999&limit=2');
    expect(middle.contents[0]?.text).toBe(Array.from(text).slice(19_999, 20_001).join(''));
  });

  it('reads another tenant’s source, an out-of-scope project and an unknown id alike as resource not found', async () => {
    await runtime.facade.ingestSource(principal, { text: 'Acme secret: the kiln ships on the 4th.', source_id: 'secret' });
    expect((await read(alice.client, 'hyphae://sources/secret')).contents[0]?.text).toContain('kiln ships');
    const cellNotFound = await failure(mallory.client, 'hyphae://cells/00000000-0000-4000-8000-000000000000');
    for (const [client, uri] of [
      [mallory.client, 'hyphae://sources/secret'],
      [mallory.client, 'hyphae://sources/secret?project=default'],
      [narrow.client, 'hyphae://sources/secret?project=default'],
      [alice.client, 'hyphae://sources/never-ingested'],
      [alice.client, 'hyphae://sources/secret?project=other'],
    ] as const) {
      await expect(client.readResource({ uri })).rejects.toMatchObject({ code: -32002, data: { code: 'NOT_FOUND', uri } });
      expect(await failure(client, uri)).toEqual(cellNotFound);
    }
    for (const bad of ['hyphae://sources/', 'hyphae://sources/-x', 'hyphae://sources/secret?colour=red', 'hyphae://sources/secret?offset=-1', 'hyphae://sources/secret?offset=1&offset=2', 'hyphae://sources/secret/x']) {
      await expect(alice.client.readResource({ uri: bad })).rejects.toMatchObject({ code: -32002 });
    }
    for (const limit of ['0', '20001']) {
      await expect(alice.client.readResource({ uri: `hyphae://sources/secret?limit=${limit}` })).rejects.toMatchObject({ code: -32602 });
    }
    await expect(alice.client.subscribeResource({ uri: 'hyphae://sources/secret' })).rejects.toMatchObject({ code: -32002 });
  });

  it('links a recalled chunk to its slice, which reads exactly the chunk’s text', async () => {
    const text = [
      '# Kiln manual',
      '',
      '## Firing',
      '',
      'Ramp the kiln to 窯 nine hundred degrees 🔥 over four hours; the thermocouple drifts above that.',
      '',
      '## Cooling',
      '',
      'Let the kiln cool below one hundred degrees before opening — température ambiante.',
    ].join('\n');
    await runtime.facade.ingestSource(principal, { text, format: 'markdown', source_id: 'manual' });
    const result = CallToolResultSchema.parse(await alice.client.callTool({ name: 'recall', arguments: { query: 'kiln thermocouple degrees', kind: 'knowledge', k: 10 } }));
    const hits = (result.structuredContent as { results: { node_id: string; source?: { source_id: string; char_start: number; char_end: number } }[] }).results;
    const chunkHits = hits.filter((hit) => hit.source?.source_id === 'manual');
    expect(chunkHits.length).toBeGreaterThanOrEqual(2);
    const links = (result.content as { type: string; uri?: string; mimeType?: string }[]).filter((block) => block.type === 'resource_link');
    expect(links).toHaveLength(hits.length);
    for (const hit of chunkHits) {
      const range = hit.source ?? { char_start: 0, char_end: 0 };
      const uri = `hyphae://sources/manual?offset=${range.char_start}&limit=${range.char_end - range.char_start}&project=default`;
      expect(links[hits.indexOf(hit)]).toMatchObject({ uri, mimeType: 'text/plain' });
      const slice = await read(alice.client, uri);
      const chunkText = Array.from(text).slice(range.char_start, range.char_end).join('');
      expect(slice.contents[0]?.text).toBe(chunkText);
      const node = (await runtime.facade.getCell(principal, hit.node_id)) as MemoryNode;
      expect(node.content.endsWith(`\n\n${chunkText}`)).toBe(true);
    }
  });

  it('pages through a source’s chunks as GET /v1/sources/{id}/chunks does, each line naming its slice and its cell', async () => {
    await runtime.facade.ingestSource(principal, { text: handbook('medlar', 6), format: 'markdown', title: 'Medlar', source_id: 'medlar' });
    const expected = await runtime.facade.sourceChunks(principal, { source_id: 'medlar', limit: 200 });
    expect(expected.chunks_total).toBeGreaterThan(4);
    const seen: unknown[] = [];
    let uri: string | null = 'hyphae://sources/medlar/chunks?limit=2';
    let reads = 0;
    while (uri !== null) {
      const result = ReadResourceResultSchema.parse(await alice.client.readResource({ uri }));
      const [outline, json] = result.contents as Content[];
      expect(outline).toMatchObject({ uri, mimeType: 'text/markdown' });
      expect(json).toMatchObject({ uri, mimeType: 'application/json' });
      const page = JSON.parse(json?.text ?? 'null') as { chunks: { chunk_index: number; node_id: string; char_start: number; char_end: number }[]; next_uri: string | null };
      expect(page).toMatchObject({ source_id: 'medlar', project: 'default', version: 'served', state: 'ready', chunks_total: expected.chunks_total });
      for (const chunk of page.chunks) {
        expect(outline?.text).toContain(`hyphae://sources/medlar?offset=${chunk.char_start}&limit=${chunk.char_end - chunk.char_start}&project=default, cell hyphae://cells/${chunk.node_id}`);
      }
      seen.push(...page.chunks);
      uri = page.next_uri;
      if (uri !== null) expect(outline?.text).toContain(`More chunks follow: read ${uri}`);
      reads += 1;
    }
    expect(seen).toEqual(expected.chunks);
    expect(reads).toBe(Math.ceil(expected.chunks_total / 2));

    // Not found exactly as the source itself: another tenant, a project outside the key's scope, an unknown id, no pending version.
    const cellNotFound = await failure(mallory.client, 'hyphae://cells/00000000-0000-4000-8000-000000000000');
    for (const [client, target] of [
      [mallory.client, 'hyphae://sources/medlar/chunks'],
      [narrow.client, 'hyphae://sources/medlar/chunks?project=default'],
      [alice.client, 'hyphae://sources/never-ingested/chunks'],
      [alice.client, 'hyphae://sources/medlar/chunks?version=pending'],
    ] as const) {
      await expect(client.readResource({ uri: target })).rejects.toMatchObject({ code: -32002, data: { code: 'NOT_FOUND', uri: target } });
      expect(await failure(client, target)).toEqual(cellNotFound);
    }
    for (const bad of ['hyphae://sources/medlar/chunks?colour=red', 'hyphae://sources/medlar/chunks?version=latest', 'hyphae://sources/medlar/chunks?limit=1&limit=2', 'hyphae://sources/medlar/chunks?cursor=a%2Fb', 'hyphae://sources/medlar/chunks/x']) {
      await expect(alice.client.readResource({ uri: bad })).rejects.toMatchObject({ code: -32002 });
    }
    for (const bad of ['hyphae://sources/medlar/chunks?limit=0', 'hyphae://sources/medlar/chunks?limit=201', 'hyphae://sources/medlar/chunks?cursor=bm90LWEtY3Vyc29y']) {
      await expect(alice.client.readResource({ uri: bad })).rejects.toMatchObject({ code: -32602 });
    }
  });
});
