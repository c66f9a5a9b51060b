import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { HyphaeError } from '../../core/errors.js';
import { readSourceLines, spoolDumpSource, type DumpSource } from './dump-source.js';

const lines = async (source: DumpSource, maxChars?: number): Promise<string[]> => {
  const read: string[] = [];
  for await (const line of readSourceLines(source, maxChars)) read.push(`${line.number}:${line.text}`);
  return read;
};

describe('dump sources', () => {
  it('spools a stream to a file that reads twice, line by line, across chunk and UTF-8 boundaries', async () => {
    const bytes = Buffer.from('{"a":"é"}\n\n  \n{"b":2}\r\n{"c":3}', 'utf8');
    const chunks = [bytes.subarray(0, 8), bytes.subarray(8, 9), bytes.subarray(9)];
    const spooled = await spoolDumpSource(Readable.from(chunks), { name: 'input', maxBytes: 1024 });
    try {
      expect(spooled.bytes).toBe(bytes.length);
      const expected = ['1:{"a":"é"}', '4:{"b":2}\r', '5:{"c":3}'];
      expect(await lines(spooled.source)).toEqual(expected);
      expect(await lines(spooled.source)).toEqual(expected);
    } finally {
      await spooled.dispose();
    }
  });

  it('refuses a stream past its limit as TOO_LARGE and leaves no file behind', async () => {
    // A temporary folder of its own (os.tmpdir() reads TMPDIR), so other files' imports cannot show up in it.
    const scratch = await mkdtemp(join(tmpdir(), 'hyphae-spool-test-'));
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = scratch;
    try {
      const error = await spoolDumpSource(Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), { name: 'the request body', maxBytes: 1000 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(HyphaeError);
      expect((error as HyphaeError).code).toBe('TOO_LARGE');
      expect(await readdir(scratch)).toEqual([]);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
      await rm(scratch, { recursive: true, force: true });
    }
  });

  it('refuses a line longer than the limit, naming it', async () => {
    const source: DumpSource = { name: 'f.jsonl', open: () => Readable.from([Buffer.from(`ok\n${'x'.repeat(50)}\nok\n`)]) };
    await expect(lines(source, 20)).rejects.toThrow('f.jsonl: line 2 is longer than 20 characters');
  });
});
