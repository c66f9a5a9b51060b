/**
 * `/v1/sources` over `app.inject` against the real facade (docs/rest.md): ingest, slices, status,
 * listing, delete, the 400s of a body with both or neither of text and turns, a body larger than
 * the server's JSON limit accepted, 10 MiB + 1 byte refused with 413, another tenant's id a 404 —
 * every response checked against the served OpenAPI document.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MintedKey } from '../support/test-runtime.js';
import { checkedCaller, createHttpTestApp, OpenApiResponseChecker, type HttpTestApp } from '../support/http/http-test-app.js';

let t: HttpTestApp;
let checker: OpenApiResponseChecker;
let alice: MintedKey;
let mallory: MintedKey;

const call = checkedCaller(
  () => t.app,
  () => checker,
);

beforeAll(async () => {
  t = await createHttpTestApp();
  checker = new OpenApiResponseChecker((await t.app.inject({ method: 'GET', url: '/openapi.json' })).json());
  alice = await t.runtime.mintKey({ tenant: 'acme', agent: 'alice', roles: ['writer'] });
  mallory = await t.runtime.mintKey({ tenant: 'globex', agent: 'mallory', roles: ['writer'] });
});
afterAll(async () => {
  await t?.close();
});

describe('/v1/sources', () => {
  it('ingests a markdown document larger than the JSON limit, reads it in slices, reports it ready, lists and deletes it', async () => {
    const text = `# Runbook\n\n${Array.from({ length: 40 }, (_, i) => `## Step ${i}\n\n${'Restart the ledger worker 🚀 and check its queue depth. '.repeat(120)}`).join('\n\n')}`;
    expect(Buffer.byteLength(text, 'utf8')).toBeGreaterThan(256 * 1024);
    const created = await call('POST', '/v1/sources', '/v1/sources', alice.key, { text, format: 'markdown', title: 'Runbook', source_id: 'runbook' });
    expect(created.statusCode, created.body).toBe(201);
    expect(created.json()).toMatchObject({ source_id: 'runbook', kind: 'knowledge', state: 'queued' });

    const pieces: string[] = [];
    for (let offset: number | null = 0; offset !== null; ) {
      const slice = await call('GET', `/v1/sources/runbook?offset=${offset}&limit=20000`, '/v1/sources/{id}', alice.key);
      expect(slice.statusCode, slice.body).toBe(200);
      const body = slice.json() as { text: string; next_offset: number | null; total_chars: number };
      pieces.push(body.text);
      offset = body.next_offset;
    }
    expect(pieces.join('')).toBe(text);

    for (;;) {
      const status = await call('GET', '/v1/sources/runbook/status', '/v1/sources/{id}/status', alice.key);
      expect(status.statusCode).toBe(200);
      const state = (status.json() as { state: string }).state;
      expect(['queued', 'indexing', 'ready']).toContain(state);
      if (state === 'ready') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const listed = await call('GET', '/v1/sources?kind=knowledge', '/v1/sources', alice.key);
    expect((listed.json() as { sources: { source_id: string }[] }).sources.map((s) => s.source_id)).toEqual(['runbook']);
    expect((await call('GET', '/v1/sources?kind=memory', '/v1/sources', alice.key)).json()).toEqual({ sources: [], next_cursor: null });

    // Its chunks, page by page: every chunk once, in order, each with its cell, range and heading path.
    const chunks: { chunk_index: number; node_id: string | null; char_start: number; char_end: number; heading_path: string; status: string }[] = [];
    for (let cursor: string | null = ''; cursor !== null; ) {
      const page = await call('GET', `/v1/sources/runbook/chunks?limit=7${cursor === '' ? '' : `&cursor=${cursor}`}`, '/v1/sources/{id}/chunks', alice.key);
      expect(page.statusCode, page.body).toBe(200);
      const body = page.json() as { version: string; state: string; chunks_total: number; chunks: typeof chunks; next_cursor: string | null };
      expect(body).toMatchObject({ version: 'served', state: 'ready' });
      chunks.push(...body.chunks);
      cursor = body.next_cursor;
    }
    expect(chunks.map((chunk) => chunk.chunk_index)).toEqual(chunks.map((_, i) => i));
    expect(chunks.every((chunk) => chunk.status === 'ready' && chunk.node_id !== null)).toBe(true);
    expect(chunks[0]?.heading_path).toBe('Runbook › Step 0');
    expect(chunks.at(-1)?.heading_path).toBe('Runbook › Step 39');
    const points = Array.from(text);
    const cell = await call('GET', `/v1/cells/${chunks[5]?.node_id ?? ''}`, '/v1/cells/{id}', alice.key);
    expect((cell.json() as { content: string }).content).toBe(`${chunks[5]?.heading_path ?? ''}\n\n${points.slice(chunks[5]?.char_start, chunks[5]?.char_end).join('')}`);
    expect((await call('GET', '/v1/sources/runbook/chunks', '/v1/sources/{id}/chunks', mallory.key)).statusCode).toBe(404);
    expect((await call('GET', '/v1/sources/runbook/chunks?version=pending', '/v1/sources/{id}/chunks', alice.key)).statusCode).toBe(404);
    expect((await call('GET', '/v1/sources/runbook/chunks?cursor=bm9wZQ', '/v1/sources/{id}/chunks', alice.key)).statusCode).toBe(400);
    expect((await call('GET', '/v1/sources/runbook', '/v1/sources/{id}', mallory.key)).statusCode).toBe(404);
    expect((await call('DELETE', '/v1/sources/runbook', '/v1/sources/{id}', mallory.key)).statusCode).toBe(404);
    const erased = await call('DELETE', '/v1/sources/runbook', '/v1/sources/{id}', alice.key);
    expect(erased.statusCode).toBe(200);
    expect(erased.json()).toMatchObject({ selector: { kind: 'source', source_id: 'runbook' }, counts: { sources: 1 } });
    expect((await call('GET', '/v1/sources/runbook/status', '/v1/sources/{id}/status', alice.key)).statusCode).toBe(404);
  });

  it('POST /v1/recall with kind: knowledge answers only chunks, each naming its source and range', async () => {
    const text = '# Boilers\n\nThe boiler relief valve lifts at six bar.';
    expect((await call('POST', '/v1/sources', '/v1/sources', alice.key, { text, format: 'markdown', source_id: 'boilers' })).statusCode).toBe(201);
    expect((await call('POST', '/v1/cells', '/v1/cells', alice.key, { content: 'The boiler relief valve was tested on Monday.', cell_type: 'Fact' })).statusCode).toBe(201);
    const recalled = await call('POST', '/v1/recall', '/v1/recall', alice.key, { query: 'boiler relief valve', k: 5, kind: 'knowledge', num_related_chunks: 1 });
    expect(recalled.statusCode, recalled.body).toBe(200);
    const results = (recalled.json() as { results: { source?: { source_id: string; char_start: number; char_end: number } }[] }).results;
    expect(results.map((hit) => hit.source?.source_id)).toEqual(['boilers']);
    expect(text.slice(results[0]?.source?.char_start, results[0]?.source?.char_end)).toBe(text);
    expect(results[0]).toMatchObject({ related_chunks: [] });
    const both = await call('POST', '/v1/recall', '/v1/recall', alice.key, { query: 'boiler relief valve', k: 5 });
    expect((both.json() as { results: unknown[] }).results).toHaveLength(2);
  });

  it('answers 400 for both or neither of text and turns, and for a limit above 20,000', async () => {
    const neither = await call('POST', '/v1/sources', '/v1/sources', alice.key, { title: 'empty' });
    expect(neither.statusCode).toBe(400);
    const both = await call('POST', '/v1/sources', '/v1/sources', alice.key, { text: 'x', turns: [{ user: 'a', assistant: 'b' }] });
    expect(both.statusCode).toBe(400);
    expect((await call('GET', '/v1/sources/x?limit=20001', '/v1/sources/{id}', alice.key)).statusCode).toBe(400);
  });

  it('answers an offset past the end with an empty slice, and one beyond 2^31 − 2 with 400 naming offset, never a 5xx', async () => {
    expect((await call('POST', '/v1/sources', '/v1/sources', alice.key, { text: 'A short note.', source_id: 'short' })).statusCode).toBe(201);
    const past = await call('GET', '/v1/sources/short?offset=2147483646', '/v1/sources/{id}', alice.key);
    expect(past.statusCode, past.body).toBe(200);
    expect(past.json()).toMatchObject({ text: '', offset: 2147483646, next_offset: null });
    const beyond = await call('GET', '/v1/sources/short?offset=2147483647', '/v1/sources/{id}', alice.key);
    expect(beyond.statusCode, beyond.body).toBe(400);
    expect(beyond.json()).toMatchObject({ error: { code: 'INVALID_ARGUMENT' } });
    expect(beyond.body).toContain('offset');
  });

  it('refuses 10 MiB + 1 byte of text with 413 TOO_LARGE', async () => {
    const text = 'y'.repeat(10 * 1024 * 1024 + 1);
    const response = await call('POST', '/v1/sources', '/v1/sources', alice.key, { text, source_id: 'huge' });
    expect(response.statusCode).toBe(413);
    expect(response.json()).toMatchObject({ error: { code: 'TOO_LARGE' } });
    expect((await call('GET', '/v1/sources/huge/status', '/v1/sources/{id}/status', alice.key)).statusCode).toBe(404);
  });
});
