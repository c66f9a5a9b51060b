/** The readers `hyphae import --format` chooses from. */
import { InvalidArgumentError } from '../../core/errors.js';
import type { ImportTenantInput } from '../../core/schemas.js';
import { hyphaeDumpReader, type DumpReader } from './dump-items.js';
import type { DumpSource } from './dump-source.js';
import type { ForeignImportTarget } from './foreign-cell.js';
import { mem0DumpReader } from './mem0-reader.js';
import { serverMemoryDumpReader } from './server-memory-reader.js';

export type ImportFormat = ImportTenantInput['format'];

/** A foreign format needs `target`: its files carry no Hyphae identity. */
export function dumpReaderFor(format: ImportFormat, source: DumpSource, target?: ForeignImportTarget): DumpReader {
  if (format === 'hyphae') return hyphaeDumpReader(source);
  if (target === undefined) throw new InvalidArgumentError(`a ${format} import needs the tenant and agent whose cells the memories become`);
  return format === 'mem0' ? mem0DumpReader(source, target) : serverMemoryDumpReader(source, target);
}
