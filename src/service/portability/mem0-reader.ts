/**
 * `--format mem0`: mem0's memories as its API returns them, saved as JSON — `{"results": [...]}`
 * (`Memory.get_all`, the platform's paginated listing) or a bare array of them. Each memory
 * (`id`, `memory`, optional `hash`, `metadata`, `created_at`, `updated_at`, `user_id`, `agent_id`,
 * `run_id`, `actor_id`, `role`, `categories`) becomes a Fact cell with its text; its creation time is
 * kept, and everything else mem0 knew of it goes into the cell's metadata under `mem0`. The file is
 * one JSON document, read whole (at most MEM0_MAX_BYTES).
 */
import { z } from 'zod';
import { emptyRecordCounts } from '../../core/export-format.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { isStorableTimestamp } from '../../core/text-rules.js';
import { readSourceText, type DumpSource } from './dump-source.js';
import { parseLine, type DumpItem, type DumpReader } from './dump-items.js';
import { foreignCell, type ForeignImportTarget } from './foreign-cell.js';

const FORMAT = 'mem0';
export const MEM0_MAX_BYTES = 256 * 1024 * 1024;

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

function memoriesOf(name: string, document: unknown): unknown[] {
  if (Array.isArray(document)) return document;
  if (document !== null && typeof document === 'object' && Array.isArray((document as { results?: unknown }).results)) {
    return (document as { results: unknown[] }).results;
  }
  throw new InvalidArgumentError(`${name} is not a mem0 export: expected {"results": [...]} or an array of memories`);
}

/** A time mem0 recorded, kept as written when it names a real instant with an offset (mem0 writes UTC ISO 8601 with microseconds). */
function instant(value: string | null | undefined): string | undefined {
  return typeof value === 'string' && isStorableTimestamp(value) ? value : undefined;
}

export function mem0DumpReader(source: DumpSource, target: ForeignImportTarget): DumpReader {
  return {
    name: source.name,
    async *items(): AsyncGenerator<DumpItem> {
      const text = await readSourceText(source, MEM0_MAX_BYTES);
      let document: unknown;
      try {
        document = JSON.parse(text);
      } catch {
        throw new InvalidArgumentError(`${source.name} is not JSON (cut short, or not a mem0 export)`);
      }
      const memories = memoriesOf(source.name, document);
      yield { kind: 'description', line: 1, description: { format: FORMAT, version: null, vectors: null } };
      const counts = emptyRecordCounts();
      for (const [index, raw] of memories.entries()) {
        // "line" numbers the memories, 1-based, in the order of the file.
        const position = index + 1;
        const memory = parseLine(source.name, position, memorySchema, raw, 'mem0 memory');
        const { id, memory: content, created_at: createdAt, updated_at: updatedAt, ...rest } = memory;
        const createdInstant = instant(createdAt);
        const updatedInstant = instant(updatedAt);
        const metadata = { imported_from: FORMAT, mem0: { id: String(id), ...Object.fromEntries(Object.entries({ ...rest, updated_at: updatedAt }).filter(([, v]) => v !== undefined && v !== null)) } };
        const record = foreignCell(source.name, position, FORMAT, target, {
          identity: [String(id)],
          content,
          cellType: 'Fact',
          metadata,
          ...(createdInstant === undefined ? {} : { createdAt: createdInstant }),
          ...(updatedInstant === undefined ? {} : { updatedAt: updatedInstant }),
        });
        counts.cell += 1;
        yield { kind: 'record', line: position, record };
      }
      yield { kind: 'end', line: memories.length + 1, counts };
    },
  };
}
