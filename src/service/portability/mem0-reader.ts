/**
 * `--format mem0`: mem0's memories as its API returns them, saved as JSON — `{"results": [...]}`
 * (`Memory.get_all`, the platform's paginated listing) or a bare array of them. Each memory
 * (`id`, `memory`, optional `hash`, `metadata`, `created_at`, `updated_at`, `user_id`, `agent_id`,
 * `run_id`, `actor_id`, `role`, `categories`) becomes a Fact cell with its text; its creation time is
 * kept, and everything else mem0 knew of it goes into the cell's metadata under `mem0`. The file is
 * one JSON document (at most MEM0_MAX_BYTES), read a memory at a time as it streams in: memory
 * holds one memory, never the document.
 */
import { setImmediate } from 'node:timers/promises';
import { z } from 'zod';
import { emptyRecordCounts, type ExportCell } from '../../core/export-format.js';
import { isStorableTimestamp } from '../../core/text-rules.js';
import { MAX_DUMP_LINE_CHARS, readSourceChunks, refuseOversized, type DumpSource } from './dump-source.js';
import { jsonArrayElements } from './json-array-elements.js';
import { parseLine, type DumpItem, type DumpReader } from './dump-items.js';
import { foreignCell, type ForeignImportTarget } from './foreign-cell.js';

const FORMAT = 'mem0';
export const MEM0_MAX_BYTES = 256 * 1024 * 1024;
/** Memories read between two turns of the event loop. */
const YIELD_EVERY = 500;

const optionalText = z.string().nullable().optional();
const memorySchema = z.looseObject({
  id: z.union([z.string().min(1), z.number()]),
  memory: z.string().min(1),
  hash: optionalText,
  metadata: z.record(z.string(), z.unknown()).nullable().optional(),
  created_at: optionalText,
  updated_at: optionalText,
  user_id: optionalText,
  agent_id: optionalText,
  run_id: optionalText,
  actor_id: optionalText,
  role: optionalText,
  categories: z.array(z.string()).nullable().optional(),
});

/** A time mem0 recorded, kept as written when it names a real instant with an offset (mem0 writes UTC ISO 8601 with microseconds). */
function instant(value: string | null | undefined): string | undefined {
  return typeof value === 'string' && isStorableTimestamp(value) ? value : undefined;
}

export interface Mem0ReaderOptions {
  /** The largest document read (default MEM0_MAX_BYTES); a larger one is TOO_LARGE before it is parsed. */
  readonly maxBytes?: number;
}

export function mem0DumpReader(source: DumpSource, target: ForeignImportTarget, options: Mem0ReaderOptions = {}): DumpReader {
  return {
    name: source.name,
    async *items(): AsyncGenerator<DumpItem> {
      const maxBytes = options.maxBytes ?? MEM0_MAX_BYTES;
      await refuseOversized(source, maxBytes);
      const chunks = readSourceChunks(source, maxBytes);
      const memories = jsonArrayElements(chunks, { name: source.name, key: 'results', maxElementChars: MAX_DUMP_LINE_CHARS });
      yield { kind: 'description', line: 1, description: { format: FORMAT, version: null, vectors: null } };
      const counts = emptyRecordCounts();
      let position = 0;
      for await (const { index, value } of memories) {
        // "line" numbers the memories, 1-based, in the order of the file.
        position = index;
        counts.cell += 1;
        yield { kind: 'record', line: position, record: memoryCell(source.name, position, target, value) };
        if (position % YIELD_EVERY === 0) await setImmediate();
      }
      yield { kind: 'end', line: position + 1, counts };
    },
  };
}

function memoryCell(name: string, position: number, target: ForeignImportTarget, raw: unknown): ExportCell {
  const memory = parseLine(name, position, memorySchema, raw, 'mem0 memory');
  const { id, memory: content, created_at: createdAt, updated_at: updatedAt, ...rest } = memory;
  const createdInstant = instant(createdAt);
  const updatedInstant = instant(updatedAt);
  const metadata = { imported_from: FORMAT, mem0: { id: String(id), ...Object.fromEntries(Object.entries({ ...rest, updated_at: updatedAt }).filter(([, v]) => v !== undefined && v !== null)) } };
  return foreignCell(name, position, FORMAT, target, {
    identity: [String(id)],
    content,
    cellType: 'Fact',
    metadata,
    ...(createdInstant === undefined ? {} : { createdAt: createdInstant }),
    ...(updatedInstant === undefined ? {} : { updatedAt: updatedInstant }),
  });
}
