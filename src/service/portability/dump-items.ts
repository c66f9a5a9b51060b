/**
 * What an importer reads, whatever the file's format: a description first (the export header, or
 * what a foreign format implies), then records in the export format's order, then the counts the
 * file declares. `hyphaeDumpReader` reads Hyphae's own format line by line, validating each line
 * with its schema and refusing a newer format version before reading anything else.
 */
import type { z } from 'zod';
import {
  EXPORT_FORMAT_NAME,
  EXPORT_FORMAT_VERSION,
  EXPORT_RECORD_SCHEMAS,
  exportEndSchema,
  exportHeaderSchema,
  type ExportHeader,
  type ExportRecord,
  type ExportRecordCounts,
  type ExportRecordType,
} from '../../core/export-format.js';
import { InvalidArgumentError, type FieldIssue } from '../../core/errors.js';
import { readSourceLines, type DumpSource } from './dump-source.js';
import { SourceTextAssembly } from './source-text-parts.js';

/** What the records that follow are: the vectors they carry (with the embedder that made them), and their scope. */
export interface DumpDescription {
  readonly format: 'hyphae' | 'server-memory' | 'mem0';
  /** The export format version; null for a foreign format, which has none. */
  readonly version: number | null;
  /** The embedder of the records' vectors; null when they carry none. */
  readonly vectors: { readonly modelId: string; readonly dimension: number } | null;
}

export type DumpItem =
  | { readonly kind: 'description'; readonly line: number; readonly description: DumpDescription }
  | { readonly kind: 'record'; readonly line: number; readonly record: ExportRecord }
  | { readonly kind: 'end'; readonly line: number; readonly counts: ExportRecordCounts };

/** A source read as dump items; items() starts again from the beginning on every call. */
export interface DumpReader {
  readonly name: string;
  items(): AsyncIterable<DumpItem>;
}

/** INVALID_ARGUMENT naming the source and line, with the failing fields as issues. */
export function badLine(source: string, line: number, message: string, issues: readonly FieldIssue[] = []): InvalidArgumentError {
  return new InvalidArgumentError(`${source}: line ${line}: ${message}`, issues, { details: { line } });
}

/** Parses a value with a line schema; a failure names each field. */
export function parseLine<S extends z.ZodType>(source: string, line: number, schema: S, value: unknown, what: string): z.output<S> {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues.flatMap((issue): FieldIssue[] => {
    const base = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') return issue.keys.map((key) => ({ path: base === '' ? key : `${base}.${key}`, message: 'unknown field' }));
    return [{ path: base === '' ? '(root)' : base, message: issue.message }];
  });
  throw badLine(source, line, `not a valid ${what}: ${issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`, issues);
}

function parseJson(source: string, line: number, text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw badLine(source, line, 'not a JSON object (a line cut short, or not an export file)');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw badLine(source, line, 'not a JSON object');
  return value as Record<string, unknown>;
}

/** Refuses a file that is not an export, or of a version newer than this code reads, before its fields are checked. */
function checkFormatVersion(source: string, value: Record<string, unknown>): void {
  if (value.type !== 'header' || value.format !== EXPORT_FORMAT_NAME) {
    throw badLine(source, 1, `not a Hyphae export: its first line must be the header {"type":"header","format":"${EXPORT_FORMAT_NAME}",…}`);
  }
  const version = value.version;
  if (typeof version === 'number' && Number.isInteger(version) && version > EXPORT_FORMAT_VERSION) {
    throw new InvalidArgumentError(
      `${source} is export format version ${version}, newer than this hyphae reads (version ${EXPORT_FORMAT_VERSION} and older): upgrade hyphae to import it`,
      [{ path: 'version', message: `${version} > ${EXPORT_FORMAT_VERSION}` }],
      { details: { line: 1, file_version: version, supported_version: EXPORT_FORMAT_VERSION } },
    );
  }
}

function describe(header: ExportHeader): DumpDescription {
  return {
    format: 'hyphae',
    version: header.version,
    vectors: header.vectors ? { modelId: header.embedder.model_id, dimension: header.embedder.dimension } : null,
  };
}

export function hyphaeDumpReader(source: DumpSource): DumpReader {
  return {
    name: source.name,
    async *items(): AsyncGenerator<DumpItem> {
      let first = true;
      let lastLine = 0;
      // A source line whose text continues on the source_text lines after it (source-text-parts.ts).
      let continued: SourceTextAssembly | undefined;
      for await (const { number, text } of readSourceLines(source)) {
        lastLine = number;
        const value = parseJson(source.name, number, text);
        if (first) {
          first = false;
          checkFormatVersion(source.name, value);
          yield { kind: 'description', line: number, description: describe(parseLine(source.name, number, exportHeaderSchema, value, 'header')) };
          continue;
        }
        if (value.type === 'source_text') {
          if (continued === undefined) {
            throw badLine(source.name, number, 'a source_text line with no source line announcing it: it continues the text of the source line just before it', [{ path: 'type', message: 'unexpected source_text' }]);
          }
          if (continued.add(number, value)) {
            yield { kind: 'record', line: continued.line, record: continued.whole() };
            continued = undefined;
          }
          continue;
        }
        if (continued !== undefined) throw continued.interrupted(number, `a ${JSON.stringify(value.type)} line`);
        if (value.type === 'end') {
          yield { kind: 'end', line: number, counts: parseLine(source.name, number, exportEndSchema, value, 'end line').counts };
          continue;
        }
        const type = value.type;
        if (typeof type !== 'string' || !Object.hasOwn(EXPORT_RECORD_SCHEMAS, type)) {
          throw badLine(source.name, number, `unknown line type ${JSON.stringify(type)}`, [{ path: 'type', message: 'unknown line type' }]);
        }
        const schema = EXPORT_RECORD_SCHEMAS[type as ExportRecordType];
        const record = parseLine(source.name, number, schema, value, `${type} line`) as ExportRecord;
        if (record.type === 'source' && record.continuation_lines !== undefined) continued = new SourceTextAssembly(source.name, number, record);
        else yield { kind: 'record', line: number, record };
      }
      if (continued !== undefined) throw continued.interrupted(lastLine, 'the end of the file');
      if (first) throw new InvalidArgumentError(`${source.name} is empty: an export starts with its header line`);
    },
  };
}
