/**
 * The first pass of an import: reads the whole file and refuses it — before anything is written —
 * when a line is malformed or out of order, when it names a tenant the import is not for, when an
 * id belongs to another tenant in the target, when its vectors do not fit its header, or when it
 * ends without the end line or with counts that differ from what it holds (a file cut short), and
 * — for a tenant's own import — when a record names an agent the tenant does not have.
 */
import { ForbiddenError, InvalidArgumentError } from '../../core/errors.js';
import { EXPORT_LINE_TYPES, emptyRecordCounts, EXPORT_RECORD_TYPES, type ExportRecord, type ExportRecordType } from '../../core/export-format.js';
import type { Queryable } from '../../store/db.js';
import { badLine, type DumpDescription, type DumpReader } from './dump-items.js';
import { OwnershipCheck } from './dump-ownership.js';
import { TenantAgentCheck, type TenantImport } from './tenant-import.js';

export interface DumpCheckOptions {
  /** The only tenant the file may name; undefined: any. */
  readonly tenant?: string;
  /** Called every so many records read. */
  readonly onProgress?: (records: number) => void;
  /** A tenant's own import: every agent a record names must be the tenant's (tenant-import.ts). */
  readonly tenantImport?: TenantImport;
}

export interface CheckedDump {
  readonly description: DumpDescription;
  readonly counts: Readonly<Record<ExportRecordType, number>>;
  /** The tenants the file's records name. */
  readonly tenants: ReadonlySet<string>;
  /** Cells the target does not hold yet (what the import adds). */
  readonly newCells: number;
}

const PROGRESS_EVERY = 1000;

export async function checkDump(q: Queryable, reader: DumpReader, options: DumpCheckOptions = {}): Promise<CheckedDump> {
  const ownership = new OwnershipCheck(q, reader.name);
  const agents = options.tenantImport === undefined ? undefined : new TenantAgentCheck(q, reader.name, options.tenantImport);
  const counts = emptyRecordCounts();
  const tenants = new Set<string>();
  const tenantLines = new Set<string>();
  let description: DumpDescription | undefined;
  let ended = false;
  let rank = 0;
  let records = 0;
  for await (const item of reader.items()) {
    if (ended) throw badLine(reader.name, item.line, 'a line after the end line');
    if (item.kind === 'description') {
      description = item.description;
      continue;
    }
    if (description === undefined) throw badLine(reader.name, item.line, 'the header must come first');
    if (item.kind === 'end') {
      checkCounts(reader.name, item.line, item.counts, counts);
      ended = true;
      continue;
    }
    const { record } = item;
    const recordRank = EXPORT_LINE_TYPES.indexOf(record.type);
    if (recordRank < rank) {
      throw badLine(reader.name, item.line, `a ${record.type} line after ${EXPORT_LINE_TYPES[rank]} lines: records go in the order ${EXPORT_RECORD_TYPES.join(', ')}`);
    }
    rank = recordRank;
    checkRecord(reader.name, item.line, record, description, options.tenant, tenantLines);
    tenants.add(record.tenant);
    if (record.type === 'tenant') tenantLines.add(record.tenant);
    await ownership.add(record, item.line);
    await agents?.add(record, item.line);
    counts[record.type] += 1;
    records += 1;
    if (records % PROGRESS_EVERY === 0) options.onProgress?.(records);
  }
  if (description === undefined) throw new InvalidArgumentError(`${reader.name} holds nothing to import`);
  if (!ended) {
    throw new InvalidArgumentError(`${reader.name} ends without its end line after ${records} records: the file was cut short (or is not a whole export); nothing was imported`, [
      { path: 'end', message: 'missing' },
    ]);
  }
  await ownership.flush();
  await agents?.flush();
  options.onProgress?.(records);
  return { description, counts, tenants, newCells: counts.cell - ownership.presentCells };
}

function checkRecord(
  source: string,
  line: number,
  record: ExportRecord,
  description: DumpDescription,
  onlyTenant: string | undefined,
  tenantLines: ReadonlySet<string>,
): void {
  if (onlyTenant !== undefined && record.tenant !== onlyTenant) {
    throw new ForbiddenError(`${source}: line ${line}: the ${record.type} belongs to tenant "${record.tenant}"; this import is for tenant "${onlyTenant}" only`, {
      details: { line },
    });
  }
  if (record.type === 'key' && !tenantLines.has(record.tenant)) {
    throw badLine(source, line, `key ${record.key_id} of tenant "${record.tenant}" comes before (or without) that tenant's line`);
  }
  if (record.type === 'cell' || record.type === 'beacon' || record.type === 'evidence') {
    const { embedding } = record;
    if (description.vectors === null && embedding !== undefined) throw badLine(source, line, 'an embedding in a file whose header says it carries none', [{ path: 'embedding', message: 'unexpected' }]);
    if (description.vectors !== null && embedding?.length !== description.vectors.dimension) {
      throw badLine(source, line, `the embedding must have the header's ${description.vectors.dimension} dimensions`, [{ path: 'embedding', message: `has ${embedding?.length ?? 0}` }]);
    }
  }
}

function checkCounts(source: string, line: number, declared: Readonly<Record<ExportRecordType, number>>, read: Readonly<Record<ExportRecordType, number>>): void {
  const differing = EXPORT_RECORD_TYPES.filter((type) => declared[type] !== read[type]);
  if (differing.length > 0) {
    const detail = differing.map((type) => `${type}: ${read[type]} read, ${declared[type]} declared`).join('; ');
    throw badLine(source, line, `the end line's counts differ from the records read (${detail}): lines are missing; nothing was imported`);
  }
}
