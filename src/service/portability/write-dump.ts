/**
 * The second pass of an import, inside one transaction: reads the checked file again and inserts
 * its records in batches, each type after the ones it depends on, adding only what the target
 * lacks. Vectors come from the file when its embedder is the target's, else from the target's
 * embedder. Inbox positions (and their waiting diffs) are restored only for agents with no inbox
 * in the target. Nothing is gossiped: an import restores state, it does not store anew.
 */
import { ConflictError, InvalidArgumentError, UnavailableError } from '../../core/errors.js';
import { MAX_RELATIONS_PER_CELL } from '../../core/relation-schemas.js';
import { emptyRecordCounts, type ExportBeacon, type ExportCell, type ExportCorroboration, type ExportDiff, type ExportEvidence, type ExportInbox, type ExportKey, type ExportRecord, type ExportRecordType, type ExportRelation, type ExportScene, type ExportSession, type ExportSource, type ExportTenant } from '../../core/export-format.js';
import type { Embedder } from '../../embed/embedder.js';
import type { Queryable } from '../../store/db.js';
import {
  idOwners,
  insertBeacons,
  insertCells,
  insertCorroborations,
  insertDiffs,
  insertInboxes,
  insertKeys,
  insertScenes,
  insertSessions,
  insertSources,
  insertTenants,
  sourceKeyText,
  type GlobalIdKind,
} from '../../store/import-repository.js';
import { insertImportedEvidence } from '../../store/cell-evidence-repository.js';
import { insertImportedRelations, strayImportedRelation } from '../../store/relation-repository.js';
import { toVectorText } from '../../store/vector-text.js';
import type { DumpReader } from './dump-items.js';
import { OwnershipCheck } from './dump-ownership.js';
import { tenantCells, tenantCorroboration, tenantEvidence, tenantRelation, tenantSource, type TenantImport } from './tenant-import.js';

export interface DumpWriteOptions {
  /** Use the file's vectors (its embedder is the target's); otherwise every text is embedded again. */
  readonly useFileVectors: boolean;
  /** The target's embedder, loaded only when something must be embedded. */
  readonly embedder: () => Promise<Embedder>;
  /** Called after each batch with the records written so far. */
  readonly onProgress?: (records: number) => void;
  /** A tenant's own import: cells take no standing from the file (tenant-import.ts). */
  readonly tenantImport?: TenantImport;
}

/** A batch of sources ends once it holds this much text: one source may hold 32 MiB. */
const SOURCE_BATCH_CHARS = 16 * 1024 * 1024;

/** Records added per type; the rest of each type's count was already present (or, for diffs, belongs to an inbox kept as it was). */
export type AddedCounts = Readonly<Record<ExportRecordType, number>>;

const BATCH_ROWS: Readonly<Record<ExportRecordType, number>> = {
  tenant: 500,
  key: 500,
  scene: 500,
  session: 500,
  // Each carries a whole text.
  source: 16,
  cell: 256,
  corroboration: 256,
  relation: 500,
  evidence: 256,
  beacon: 256,
  inbox: 500,
  diff: 500,
};

export async function writeDump(tx: Queryable, reader: DumpReader, options: DumpWriteOptions): Promise<AddedCounts> {
  const writer = new DumpWriter(tx, reader.name, options);
  for await (const item of reader.items()) {
    if (item.kind === 'record') await writer.add(item.record, item.line);
  }
  await writer.flush();
  return writer.added;
}

class DumpWriter {
  readonly added = emptyRecordCounts();
  private batch: ExportRecord[] = [];
  private lines: number[] = [];
  /** Characters of source text in the batch. */
  private batchChars = 0;
  private written = 0;
  private embedder: Promise<Embedder> | undefined;
  private readonly ownership: OwnershipCheck;
  /** Inboxes this import restored: only their diffs are written. */
  private readonly restoredInboxes = new Set<string>();
  /** Sources this import added: only their chunks are written (sourceKeyText). */
  private readonly addedSources = new Set<string>();

  constructor(
    private readonly tx: Queryable,
    private readonly source: string,
    private readonly options: DumpWriteOptions,
  ) {
    this.ownership = new OwnershipCheck(tx, source);
  }

  async add(record: ExportRecord, line: number): Promise<void> {
    const full = this.batch[0]?.type !== record.type || this.batch.length >= BATCH_ROWS[record.type] || this.batchChars >= SOURCE_BATCH_CHARS;
    if (this.batch.length > 0 && full) await this.flush();
    this.batch.push(record);
    this.lines.push(line);
    if (record.type === 'source') this.batchChars += record.text.length;
  }

  async flush(): Promise<void> {
    const batch = this.batch;
    const type = batch[0]?.type;
    if (type === undefined) return;
    for (const [i, record] of batch.entries()) await this.ownership.add(record, this.lines[i] ?? 0);
    await this.ownership.flush();
    this.added[type] += await this.insert(type, batch);
    this.written += batch.length;
    this.batch = [];
    this.lines = [];
    this.batchChars = 0;
    this.options.onProgress?.(this.written);
  }

  private async insert(type: ExportRecordType, batch: readonly ExportRecord[]): Promise<number> {
    switch (type) {
      case 'tenant':
        return (await insertTenants(this.tx, batch as ExportTenant[])).length;
      case 'key':
        return (await insertKeys(this.tx, batch as ExportKey[])).length;
      case 'scene':
        return (await insertScenes(this.tx, batch as ExportScene[])).length;
      case 'session':
        return (await insertSessions(this.tx, batch as ExportSession[])).length;
      case 'source':
        return this.insertSources(batch as ExportSource[]);
      case 'cell':
        return this.insertCells(batch as ExportCell[]);
      case 'beacon': {
        const beacons = batch as ExportBeacon[];
        const vectors = await this.vectors(beacons.map((b) => ({ text: b.text, embedding: b.embedding })));
        return (await insertBeacons(this.tx, beacons.map(({ embedding: _file, ...beacon }, i) => ({ ...beacon, embedding: vectors[i] as string })))).length;
      }
      case 'inbox': {
        const restored = await insertInboxes(this.tx, batch as ExportInbox[]);
        for (const inbox of restored) this.restoredInboxes.add(JSON.stringify([inbox.tenantId, inbox.agent]));
        return restored.length;
      }
      case 'diff': {
        const diffs = (batch as ExportDiff[]).filter((d) => this.restoredInboxes.has(JSON.stringify([d.tenant, d.recipient_agent])));
        return (await insertDiffs(this.tx, diffs)).length;
      }
      case 'corroboration':
        return this.insertCorroborations(batch as ExportCorroboration[]);
      case 'relation':
        return this.insertRelations(batch as ExportRelation[]);
      case 'evidence':
        return this.insertEvidence(batch as ExportEvidence[]);
    }
  }

  private async insertSources(fileSources: readonly ExportSource[]): Promise<number> {
    const rules = this.options.tenantImport;
    const sources = rules === undefined ? fileSources : fileSources.map((source) => tenantSource(rules, source));
    const added = await insertSources(this.tx, sources);
    for (const key of added) this.addedSources.add(key);
    return added.length;
  }

  private async insertCells(fileCells: readonly ExportCell[]): Promise<number> {
    const rules = this.options.tenantImport;
    // A chunk comes only with its source: one of a source the target kept would mix two versions' chunks, one without its source would be an orphan.
    const linked = fileCells.filter((cell) => cell.source_id === null || cell.source_id === undefined || this.addedSources.has(sourceKeyText(cell.tenant, cell.project, cell.source_id)));
    const cells = rules === undefined ? linked : await tenantCells(this.tx, rules, linked);
    const vectors = await this.vectors(cells.map((c) => ({ text: c.content, embedding: c.embedding })));
    const added = new Set(await insertCells(this.tx, cells.map(({ embedding: _file, ...cell }, i) => ({ ...cell, embedding: vectors[i] as string }))));
    // A skipped cell must be the same tenant's already; otherwise another unique rule refused it.
    const refused = await this.foreignSkipped('cell', cells.map((cell) => ({ id: cell.node_id, tenant: cell.tenant, record: cell })), added);
    if (refused !== undefined) {
      throw new ConflictError(
        `${this.source}: cell ${refused.node_id} conflicts with a cell the target holds (the same agent's idempotency key, or a second successor of the cell it supersedes)`,
        { details: { kind: 'cell', id: refused.node_id } },
      );
    }
    return added.size;
  }

  private async insertCorroborations(fileRecords: readonly ExportCorroboration[]): Promise<number> {
    const rules = this.options.tenantImport;
    const records = rules === undefined ? fileRecords : fileRecords.map((record) => tenantCorroboration(rules, record));
    const added = new Set(await insertCorroborations(this.tx, records));
    // A skipped record must be the same tenant's already; otherwise its cell is missing, and dropping it would lose a statement.
    const orphan = await this.foreignSkipped('corroboration', records.map((record) => ({ id: record.corroboration_id, tenant: record.tenant, record })), added);
    if (orphan !== undefined) {
      throw new ConflictError(
        `${this.source}: corroboration ${orphan.corroboration_id} names cell ${orphan.node_id}, which is neither in the file nor tenant "${orphan.tenant}"'s in the target; nothing was imported`,
        { details: { kind: 'corroboration', id: orphan.corroboration_id } },
      );
    }
    return added.size;
  }

  /** Relations between cells of their own tenant only (the file's, now written, or the target's), within the per-cell bound. */
  private async insertRelations(fileRecords: readonly ExportRelation[]): Promise<number> {
    const rules = this.options.tenantImport;
    const records = rules === undefined ? fileRecords : fileRecords.map((record) => tenantRelation(rules, record));
    const stray = await strayImportedRelation(this.tx, records);
    if (stray !== null) {
      throw new ConflictError(
        `${this.source}: relation ${stray.from_node_id} ${stray.relation_type} ${stray.to_node_id} names a cell that is neither in the file nor tenant "${stray.tenant}"'s in the target; nothing was imported`,
        { details: { kind: 'relation', id: stray.from_node_id } },
      );
    }
    const { added, overfull } = await insertImportedRelations(this.tx, records);
    if (overfull !== null) {
      throw new InvalidArgumentError(`${this.source}: cell ${overfull} would declare more than ${MAX_RELATIONS_PER_CELL} relations; nothing was imported`, [
        { path: 'relation', message: `at most ${MAX_RELATIONS_PER_CELL} relations per cell` },
      ]);
    }
    return added;
  }

  /**
   * Learnt evidence for cells of its own tenant (others are skipped: they can lift nothing). Its
   * vector is the file's when the file's embedder is the target's; otherwise its query text is
   * embedded again, and evidence without text (only its hash was logged) is dropped.
   */
  private async insertEvidence(fileRecords: readonly ExportEvidence[]): Promise<number> {
    const rules = this.options.tenantImport;
    const ruled = rules === undefined ? fileRecords : await tenantEvidence(this.tx, rules, fileRecords);
    const records = this.options.useFileVectors ? ruled : ruled.filter((record) => record.query_text !== null);
    const vectors = await this.vectors(records.map((record) => ({ text: record.query_text ?? '', embedding: record.embedding })));
    return (await insertImportedEvidence(this.tx, records.map(({ embedding: _file, type: _type, ...record }, i) => ({ ...record, embedding: vectors[i] as string })))).length;
  }

  /** The first record the insert skipped (not in `added`) whose id the target does not hold under the record's own tenant. */
  private async foreignSkipped<T>(kind: GlobalIdKind, rows: readonly { readonly id: string; readonly tenant: string; readonly record: T }[], added: ReadonlySet<string>): Promise<T | undefined> {
    const skipped = rows.filter((row) => !added.has(row.id.toLowerCase()));
    if (skipped.length === 0) return undefined;
    const owners = await idOwners(this.tx, kind, skipped.map((row) => row.id.toLowerCase()));
    return skipped.find((row) => owners.get(row.id.toLowerCase()) !== row.tenant)?.record;
  }

  /** pgvector text for each record: the file's vector, or its text embedded by the target's embedder. */
  private async vectors(items: readonly { readonly text: string; readonly embedding?: readonly number[] | undefined }[]): Promise<string[]> {
    if (this.options.useFileVectors) return items.map((item) => toVectorText(item.embedding ?? []));
    this.embedder ??= this.options.embedder();
    const embedder = await this.embedder;
    const vectors = await embedder.embed(items.map((item) => item.text));
    if (vectors.length !== items.length) throw new UnavailableError(`the embedder returned ${vectors.length} vectors for ${items.length} texts`);
    return vectors.map((vector) => toVectorText(vector));
  }
}
