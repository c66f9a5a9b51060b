/**
 * The foreign readers at scale, without timing anything: a memory-server file of 40,000 relations
 * is indexed with at most two entries per relation (no list is copied as it grows) and each cell
 * carries a bounded share of its hub's relations; mem0's document is read an element at a time
 * (an element over its bound is refused while a far larger document of small ones is read), and a
 * document over the size cap is refused before any of it is parsed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DumpItem, DumpReader } from '../../src/service/portability/dump-items.js';
import { jsonArrayElements } from '../../src/service/portability/json-array-elements.js';
import { mem0DumpReader } from '../../src/service/portability/mem0-reader.js';
import { MAX_RELATIONS_PER_ENTITY, RelationIndex } from '../../src/service/portability/relation-index.js';
import { serverMemoryDumpReader } from '../../src/service/portability/server-memory-reader.js';
import { tempFiles, type TempFiles } from './portability-support.js';

const TARGET = { tenant: 'acme', agent: 'importer', project: 'graph', now: new Date('2026-12-01T00:00:00Z') };
const RELATIONS = 40_000;

async function itemsOf(reader: DumpReader): Promise<DumpItem[]> {
  const items: DumpItem[] = [];
  for await (const item of reader.items()) items.push(item);
  return items;
}

async function* chunksOf(text: string, size: number): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

async function elements(text: string, size: number, maxElementChars = 1_000_000): Promise<unknown[]> {
  const values: unknown[] = [];
  for await (const { value } of jsonArrayElements(chunksOf(text, size), { name: 'doc', key: 'results', maxElementChars })) values.push(value);
  return values;
}

describe('foreign readers at scale', { timeout: 60_000 }, () => {
  let files: TempFiles;
  beforeAll(async () => {
    files = await tempFiles();
  });
  afterAll(async () => {
    await files?.close();
  });

  it('indexes 40,000 relations with at most two entries each, and gives each hub cell a bounded share with the full count', async () => {
    const index = new RelationIndex();
    for (let i = 0; i < RELATIONS; i++) index.add({ from: 'Hub', relation_type: 'links', to: `Leaf_${i}` });
    // Linear: one entry under each leaf, and the hub's list stops at its cap instead of being copied 40,000 times.
    expect(index.entriesWritten).toBe(RELATIONS + MAX_RELATIONS_PER_ENTITY);
    expect(index.of('Hub').relation_count).toBe(RELATIONS);

    const lines = [
      JSON.stringify({ type: 'entity', name: 'Hub', entityType: 'service', observations: ['Routes every request', 'Runs in three regions'] }),
      ...Array.from({ length: RELATIONS }, (_, i) => JSON.stringify({ type: 'relation', from: 'Hub', to: `Leaf_${i}`, relationType: 'links' })),
    ];
    const items = await itemsOf(serverMemoryDumpReader(await files.write(lines), TARGET));
    const cells = items.flatMap((item) => (item.kind === 'record' && item.record.type === 'cell' ? [item.record] : []));
    expect(cells.map((cell) => cell.content)).toEqual(['Hub (service): Routes every request', 'Hub (service): Runs in three regions']);
    for (const cell of cells) {
      expect(cell.metadata.relation_count).toBe(RELATIONS);
      expect(cell.metadata.relations).toHaveLength(MAX_RELATIONS_PER_ENTITY);
    }
    expect(items.at(-1)).toMatchObject({ kind: 'end', counts: { cell: 2 } });
  });

  it("reads mem0's memories an element at a time, whatever the chunks, under either shape", async () => {
    const memories = [
      { id: 'a', memory: 'Brackets ] and [ and braces } in "quotes" \\ stay text', metadata: { tags: ['x', { y: [1, 2] }] } },
      { id: 2, memory: 'second', categories: [] },
    ];
    const wrapped = JSON.stringify({ results: memories, relations: [{ source: 'a', target: 'b' }], count: 2 });
    for (const size of [1, 7, 4096]) {
      expect(await elements(wrapped, size)).toEqual(memories);
      expect(await elements(JSON.stringify(memories), size)).toEqual(memories);
    }
    expect(await elements(' { "other": [1, 2], "results" : [ ] } ', 3)).toEqual([]);
  });

  it('refuses documents that are not a list of memories, or cut short', async () => {
    await expect(elements('{"results": {"a": 1}}', 4)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: 'doc: "results" is not an array of memories' });
    await expect(elements('{"results": [{"id": 1}, {"id": 2', 4)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('ends inside a value') });
    await expect(elements('[1, 2] [3]', 4)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('text after the document') });
    await expect(elements('{"memories": []}', 4)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('neither') });
    await expect(elements('[{"id": tru}]', 4)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: expect.stringContaining('element 1 is malformed') });
  });

  it('holds one element, never the document: a long element is refused, a document of many short ones is read', async () => {
    const small = JSON.stringify(Array.from({ length: 2_000 }, (_, i) => ({ id: i, memory: `memory ${i}` })));
    expect(small.length).toBeGreaterThan(40 * 1024);
    expect(await elements(small, 1024, 256)).toHaveLength(2_000);
    const long = JSON.stringify([{ id: 1, memory: 'x'.repeat(4096) }]);
    await expect(elements(long, 1024, 256)).rejects.toMatchObject({ code: 'INVALID_ARGUMENT', message: 'doc: element 1 is longer than 256 characters' });
  });

  it('refuses a mem0 document over the cap before parsing any of it', async () => {
    // Not JSON at all: a reader that parsed before checking the size would say so instead.
    const source = await files.write(`{{{{${' '.repeat(4096)}`);
    const seen: DumpItem[] = [];
    const reading = (async (): Promise<void> => {
      for await (const item of mem0DumpReader(source, TARGET, { maxBytes: 1024 }).items()) seen.push(item);
    })();
    await expect(reading).rejects.toMatchObject({ code: 'TOO_LARGE', details: { limit_bytes: 1024, actual_bytes: 4100 } });
    expect(seen).toEqual([]);
  });
});
