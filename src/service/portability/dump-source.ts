/**
 * Where an import reads from: a file, or a stream (standard input, a request body) spooled to a
 * private temporary file as it arrives, so the importer can read it twice — once to validate it
 * whole, once to write it — holding one line at a time, never the file.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StringDecoder } from 'node:string_decoder';
import { InvalidArgumentError, TooLargeError } from '../../core/errors.js';

export interface DumpSource {
  /** What messages call it: a file name, "standard input", "the request body". */
  readonly name: string;
  /** The bytes from the start, opened anew on every call. */
  open(): Readable;
  /** Its size in bytes, known without reading it (a file's); absent for a stream. */
  size?(): Promise<number>;
}

export interface SourceLine {
  /** 1-based, counting blank lines too, as an editor does. */
  readonly number: number;
  readonly text: string;
}

/** A line longer than this is refused: a cell line with its vector and reinforcement keys stays far below it. */
export const MAX_DUMP_LINE_CHARS = 8 * 1024 * 1024;

export function fileDumpSource(path: string, name: string = path): DumpSource {
  return { name, open: () => createReadStream(path), size: async () => (await stat(path)).size };
}

export interface SpooledDumpSource {
  readonly source: DumpSource;
  /** The bytes spooled. */
  readonly bytes: number;
  /** Removes the temporary file. */
  dispose(): Promise<void>;
}

export interface SpoolOptions {
  readonly name: string;
  readonly maxBytes: number;
  /** Where the private temporary folder is made (default: the system's). */
  readonly dir?: string;
  /** Told the running total before each chunk is written; throwing refuses the rest (the file is removed). */
  readonly onBytes?: (bytes: number) => void;
}

/** Copies `input` to a temporary file readable by this user only; more than `maxBytes` is TOO_LARGE, and nothing stays behind. */
export async function spoolDumpSource(input: Readable, options: SpoolOptions): Promise<SpooledDumpSource> {
  const dir = await mkdtemp(join(options.dir ?? tmpdir(), 'hyphae-import-'));
  const path = join(dir, 'spooled.jsonl');
  const dispose = (): Promise<void> => rm(dir, { recursive: true, force: true });
  let bytes = 0;
  try {
    await pipeline(
      input,
      async function* limit(chunks: AsyncIterable<Buffer | string>): AsyncGenerator<Buffer | string> {
        for await (const chunk of chunks) {
          bytes += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
          if (bytes > options.maxBytes) throw new TooLargeError(options.name, options.maxBytes, bytes);
          options.onBytes?.(bytes);
          yield chunk;
        }
      },
      createWriteStream(path, { mode: 0o600 }),
    );
  } catch (error) {
    await dispose();
    throw error;
  }
  return { source: fileDumpSource(path, options.name), bytes, dispose };
}

/** The source's lines, decoded as UTF-8; whitespace-only lines are skipped, a line past `maxChars` is refused. */
export async function* readSourceLines(source: DumpSource, maxChars: number = MAX_DUMP_LINE_CHARS): AsyncGenerator<SourceLine> {
  const decoder = new StringDecoder('utf8');
  let pending = '';
  let number = 0;
  const tooLong = (): InvalidArgumentError =>
    new InvalidArgumentError(`${source.name}: line ${number + 1} is longer than ${maxChars} characters`, [{ path: `line ${number + 1}`, message: 'line too long' }]);
  for await (const chunk of source.open() as AsyncIterable<Buffer>) {
    pending += decoder.write(chunk);
    let start = 0;
    for (let end = pending.indexOf('\n', start); end !== -1; end = pending.indexOf('\n', start)) {
      if (end - start > maxChars) throw tooLong();
      number += 1;
      const text = pending.slice(start, end);
      if (text.trim() !== '') yield { number, text };
      start = end + 1;
    }
    pending = pending.slice(start);
    if (pending.length > maxChars) throw tooLong();
  }
  pending += decoder.end();
  if (pending.trim() !== '') yield { number: number + 1, text: pending };
}

/**
 * The source as decoded text, a chunk at a time (for formats that are one JSON document): a source
 * of known size over `maxBytes` is TOO_LARGE before a byte is read, any other as soon as it passes.
 */
export async function* readSourceChunks(source: DumpSource, maxBytes: number): AsyncGenerator<string> {
  await refuseOversized(source, maxBytes);
  const decoder = new StringDecoder('utf8');
  let bytes = 0;
  for await (const chunk of source.open() as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > maxBytes) throw new TooLargeError(source.name, maxBytes, bytes);
    yield decoder.write(chunk);
  }
  yield decoder.end();
}

/** TOO_LARGE when the source's size is known and over `maxBytes`; reads nothing. */
export async function refuseOversized(source: DumpSource, maxBytes: number): Promise<void> {
  const size = await source.size?.();
  if (size !== undefined && size > maxBytes) throw new TooLargeError(source.name, maxBytes, size);
}
