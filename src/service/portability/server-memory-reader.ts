/**
 * `--format server-memory`: the JSON Lines file of the reference MCP memory server
 * (@modelcontextprotocol/server-memory): `{"type":"entity","name","entityType","observations":[…]}`
 * and `{"type":"relation","from","to","relationType"}` lines. Each observation becomes a Fact cell
 * "<name> (<entityType>): <observation>"; an entity without observations becomes one cell naming
 * it. The relations an entity takes part in are kept in its cells' metadata (the first
 * MAX_RELATIONS_PER_ENTITY, and their count); a relation between names the file holds no entity
 * for becomes a cell of its own. The file is read twice: once for the relations, once to write the
 * cells, each in time linear in its size, turning the event loop every YIELD_EVERY lines.
 */
import { setImmediate } from 'node:timers/promises';
import { z } from 'zod';
import { emptyRecordCounts } from '../../core/export-format.js';
import { readSourceLines, type DumpSource } from './dump-source.js';
import { badLine, parseLine, type DumpItem, type DumpReader } from './dump-items.js';
import { foreignCell, type ForeignImportTarget } from './foreign-cell.js';
import { RelationIndex, type GraphRelation } from './relation-index.js';

const FORMAT = 'server-memory';

const entitySchema = z.object({
  type: z.literal('entity'),
  name: z.string().min(1),
  entityType: z.string(),
  observations: z.array(z.string()),
});
const relationSchema = z.object({
  type: z.literal('relation'),
  from: z.string().min(1),
  to: z.string().min(1),
  relationType: z.string().min(1),
});
const lineSchema = z.discriminatedUnion('type', [entitySchema, relationSchema]);

/** Lines read between two turns of the event loop: a long file never holds it for long. */
const YIELD_EVERY = 1000;

async function* graphLines(source: DumpSource): AsyncGenerator<{ line: number; item: z.output<typeof lineSchema> }> {
  for await (const { number, text } of readSourceLines(source)) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw badLine(source.name, number, 'not JSON (a line cut short, or not a memory server file)');
    }
    yield { line: number, item: parseLine(source.name, number, lineSchema, value, 'entity or relation line') };
    if (number % YIELD_EVERY === 0) await setImmediate();
  }
}

export function serverMemoryDumpReader(source: DumpSource, target: ForeignImportTarget): DumpReader {
  return {
    name: source.name,
    async *items(): AsyncGenerator<DumpItem> {
      const relations = new RelationIndex();
      const entities = new Set<string>();
      const loose: { line: number; relation: GraphRelation }[] = [];
      let lastLine = 0;
      for await (const { line, item } of graphLines(source)) {
        lastLine = line;
        if (item.type === 'entity') {
          entities.add(item.name);
          continue;
        }
        const relation = { from: item.from, relation_type: item.relationType, to: item.to };
        relations.add(relation);
        loose.push({ line, relation });
      }
      yield { kind: 'description', line: 1, description: { format: FORMAT, version: null, vectors: null } };
      const counts = emptyRecordCounts();
      const cell = (line: number, identity: string[], content: string, metadata: Record<string, unknown>): DumpItem => {
        counts.cell += 1;
        return { kind: 'record', line, record: foreignCell(source.name, line, FORMAT, target, { identity, content, cellType: 'Fact', metadata }) };
      };
      for await (const { line, item } of graphLines(source)) {
        if (item.type !== 'entity') continue;
        const metadata = { imported_from: FORMAT, entity: item.name, entity_type: item.entityType, ...relations.of(item.name) };
        const label = item.entityType === '' ? item.name : `${item.name} (${item.entityType})`;
        if (item.observations.length === 0) yield cell(line, ['entity', item.name], label, metadata);
        for (const observation of item.observations) yield cell(line, ['observation', item.name, observation], `${label}: ${observation}`, metadata);
      }
      for (const { line, relation } of loose) {
        if (entities.has(relation.from) || entities.has(relation.to)) continue;
        const content = `${relation.from} ${relation.relation_type} ${relation.to}`;
        yield cell(line, ['relation', relation.from, relation.relation_type, relation.to], content, { imported_from: FORMAT, relations: [relation], relation_count: 1 });
      }
      yield { kind: 'end', line: lastLine + 1, counts };
    },
  };
}
